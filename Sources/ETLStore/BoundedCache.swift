import Foundation

/// Answers worked out from their key alone, kept for the rest of the process and shared by
/// its threads (a batch's jobs): the first `capacity` keys are kept, later ones are worked
/// out each time. A key's answer never changes, so one worked out twice by two threads at
/// once is the same answer.
///
///     static let images = BoundedCache<[String], EmptyStoreImage>(capacity: 32)
///     let image = try images.value(for: sql) { try make(sql) }
public final class BoundedCache<Key: Hashable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [Key: Value] = [:]
    private let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    /// The answer for `key`: the kept one, else `make`'s (kept while there is room).
    public func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        if let value = lock.withLock({ kept[key] }) { return value }
        let value = try make()
        lock.withLock {
            if kept.count < capacity { kept[key] = value }
        }
        return value
    }
}
