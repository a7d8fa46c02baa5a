import Foundation

/// What runs of one plan work out from the plan alone — the push-down statements of its
/// steps, the fingerprint of its pipeline and model files — kept after the first run for
/// the next ones. `PlanCache` gives one to each plan it keeps, so that the stores of one
/// schema in a batch share it (perf: `PushdownPlan.make` and `RunIdentity.of` were 7 % of
/// a batch of small stores, each store working out the same statements again). A plan
/// made on its own has none: each of its runs works them out.
///
/// Whatever is kept here must depend on the plan only, never on a store's rows or paths:
/// the copies of a kept plan differ in their store paths (`PlanCache`), and the data a run
/// decides from (whether keys are contiguous, whether a uniqueBy key is null) is read per
/// store. A key names everything else its value depends on (the step, the policies, …),
/// and its type says what the value is (`PlanMemoKey.Value`).
/// A plan whose steps are changed after it was kept would share stale values: such a plan
/// must drop its memo (`memo = nil`).
public final class PlanMemo: @unchecked Sendable {
    private let lock = NSLock()
    /// Each value is its key's `Value` (`value(_:work:)` stores nothing else).
    private var values: [AnyHashable: Any] = [:]

    public init() {}

    /// The values kept so far.
    public var count: Int { lock.withLock { values.count } }

    /// The value kept under `key`, else `work()`'s, kept. (Worked out outside the lock: two
    /// runs asking at once both work it out, and keep the same value.)
    public func value<Key: PlanMemoKey>(_ key: Key, work: () throws -> Key.Value) rethrows -> Key.Value {
        if let known = lock.withLock({ values[AnyHashable(key)] }) as? Key.Value { return known }
        let value = try work()
        lock.withLock { values[AnyHashable(key)] = value }
        return value
    }
}

/// What a value kept in a `PlanMemo` is worked out from, and (`Value`) what it is.
public protocol PlanMemoKey: Hashable, Sendable {
    associatedtype Value
}
