import Foundation
import ETL

/// Where one store's time went, in seconds. A batch of many small stores spends most of
/// each store's time around its rows, not on them; these parts say where.
///
///     "cost": { "plan": 0.004, "check": 0.006, "copy": 0.011, "validate": 0.003, "rename": 0.005 }
///
/// The parts follow one another and add up to the store's time, but for the batch's own
/// bookkeeping (the manifest's entries) around them.
public struct BatchStoreCost: Sendable, Codable, Equatable {
    /// Before the run: the store opened, its layout checked, its version detected, the
    /// hops planned (up to date: skipped here).
    public var plan: Double = 0
    /// The run's own set-up before its first row: its plan, the source check, the lock,
    /// the destination and work files made (or the checkpoint read, when resuming).
    public var check: Double = 0
    /// The create and relate stages of every step: rows and links written.
    public var copy: Double = 0
    /// The validate stages.
    public var validate: Double = 0
    /// The finalize stage: Core Data's metadata, the integrity check, fsync, and the atomic
    /// rename of the result into place.
    public var rename: Double = 0

    public init() {}

    public var total: Double { plan + check + copy + validate + rename }

    /// Part by part, the sum of `costs`.
    public static func sum(_ costs: [BatchStoreCost]) -> BatchStoreCost {
        var sum = BatchStoreCost()
        for cost in costs {
            sum.plan += cost.plan
            sum.check += cost.check
            sum.copy += cost.copy
            sum.validate += cost.validate
            sum.rename += cost.rename
        }
        return sum
    }
}

/// Times one store's migration into `BatchStoreCost` parts from the run's progress
/// events: each span goes to the stage under way (the one the last event named), the span
/// before the first event to `check`, the one after the last to that event's stage.
final class BatchStoreClock: @unchecked Sendable {
    private let lock = NSLock()
    private var cost = BatchStoreCost()
    private var part: WritableKeyPath<BatchStoreCost, Double> = \.check
    private var since = Date()

    /// The store was read and planned, starting at `start`; the run starts now.
    func planned(since start: Date) {
        lock.lock()
        defer { lock.unlock() }
        since = Date()
        cost.plan += since.timeIntervalSince(start)
        part = \.check
    }

    /// A progress event of the run (delivered in order).
    func event(_ stage: Stage) {
        let next: WritableKeyPath<BatchStoreCost, Double>
        switch stage {
        case .create, .relate: next = \.copy
        case .validate: next = \.validate
        case .finalize: next = \.rename
        }
        lock.lock()
        defer { lock.unlock() }
        if next != part { lap() }
        part = next
    }

    /// The run returned: the parts so far.
    func finished() -> BatchStoreCost {
        lock.lock()
        defer { lock.unlock() }
        lap()
        return cost
    }

    private func lap() {
        let now = Date()
        cost[keyPath: part] += now.timeIntervalSince(since)
        since = now
    }
}
