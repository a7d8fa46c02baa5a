import Foundation

/// A request to stop, set from anywhere (a signal handler's queue, another thread) and
/// checked by the engine between chunks: the chunk being loaded is finished and its
/// checkpoint written, then the run ends with `MigrationError.interrupted`.
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false
    /// A stop of the parent stops this one too (a batch's Ctrl-C stops each store's run).
    private let parent: Cancellation?

    public init(parent: Cancellation? = nil) {
        self.parent = parent
    }

    public func cancel() {
        lock.lock()
        requested = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        let own = requested
        lock.unlock()
        return own || (parent?.isCancelled ?? false)
    }
}
