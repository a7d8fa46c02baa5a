import Foundation
import ETL

/// Where one store's time went, in seconds. A batch of many small stores spends most of
/// each store's time around its rows, not on them; these parts say where.
///
///     "cost": { "open": 0.001, "plan": 0.004, "check": 0.006, "copy": 0.011, "validate": 0.003, "rename": 0.005 }
///
/// The parts follow one another and add up to the store's time, but for the batch's own
/// bookkeeping (the manifest's entries) around them.
public struct BatchStoreCost: Sendable, Codable, Equatable {
    /// Before the run: the store opened and its layout checked.
    public var open: Double = 0
    /// Before the run: its version detected, the hops planned (up to date: skipped here).
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

    /// Manifests written before `open` was measured have none: 0, their `plan` holds it.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        open = try container.decodeIfPresent(Double.self, forKey: .open) ?? 0
        plan = try container.decode(Double.self, forKey: .plan)
        check = try container.decode(Double.self, forKey: .check)
        copy = try container.decode(Double.self, forKey: .copy)
        validate = try container.decode(Double.self, forKey: .validate)
        rename = try container.decode(Double.self, forKey: .rename)
    }

    public var total: Double { open + plan + check + copy + validate + rename }

    /// Part by part, the sum of `costs`.
    public static func sum(_ costs: [BatchStoreCost]) -> BatchStoreCost {
        var sum = BatchStoreCost()
        for cost in costs {
            sum.open += cost.open
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

    /// The store was opened from `start` to `opened`, then planned; the run starts now.
    func planned(since start: Date, opened: Date) {
        lock.lock()
        defer { lock.unlock() }
        since = Date()
        cost.open += opened.timeIntervalSince(start)
        cost.plan += since.timeIntervalSince(opened)
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
