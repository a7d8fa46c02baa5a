import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// What the stages of one step share: the plan, the connections, the options, the
/// counters, the checkpoint and the progress callback.
final class StepContext {
    let plan: StepPlan
    let stepCount: Int
    /// The step's input store, read-only.
    let source: Database
    let sourcePath: String
    /// The step's output store, with the work database attached as `work`.
    let destination: Database
    let workPath: String
    let chunkSize: Int
    let workers: Int
    let report: (ProgressEvent) -> Void
    /// One per target (`StepPlan.targets`), subscripted by `TargetID`: a mapping's rows
    /// read, filtered and rejected are its own target's.
    var counters: [MappingCounters]
    /// Next free key per destination table: keys are handed out in load order, which is
    /// source order, so they are the same on every run. Also the resume watermark.
    var nextKey: [String: Int64]
    /// Where a resumed run starts inside this step (nil: from the beginning).
    let resume: Checkpoint.Position?
    /// Where the stages report each commit, for the run to write the checkpoint (none: no
    /// checkpoints are kept).
    weak var checkpoints: CheckpointSink?
    let cancellation: Cancellation?
    let policies: PolicyRegistry
    /// The run's plan's `PlanMemo`, if it has one.
    let memo: PlanMemo?
    /// Rejected rows allowed in the whole run, and how many earlier steps rejected.
    let maxRejects: Int
    let priorRejects: Int
    /// The run's thresholds and test hooks.
    let tuning: EngineTuning
    /// The store was made with its plain indexes (a small step's, `EmptyStoreImage`):
    /// none is left to build.
    var indexesMade = false

    init(plan: StepPlan, stepCount: Int, source: Database, sourcePath: String, destination: Database, workPath: String,
         chunkSize: Int, workers: Int, counters: [MappingCounters]?, nextKey: [String: Int64], resume: Checkpoint.Position?,
         cancellation: Cancellation?, policies: PolicyRegistry, memo: PlanMemo? = nil, maxRejects: Int, priorRejects: Int,
         tuning: EngineTuning, report: @escaping (ProgressEvent) -> Void) {
        self.plan = plan
        self.stepCount = stepCount
        self.source = source
        self.sourcePath = sourcePath
        self.destination = destination
        self.workPath = workPath
        self.chunkSize = chunkSize
        self.workers = workers
        self.report = report
        // One counter per target: each mapping's own, then policies' extra entities.
        self.counters = counters ?? plan.targets.map {
            MappingCounters(step: plan.name, mapping: $0.name, source: plan.mappings[$0.mapping].sourceEntity, destination: $0.entity)
        }
        self.policies = policies
        self.memo = memo
        self.maxRejects = maxRejects
        self.priorRejects = priorRejects
        self.tuning = tuning
        self.nextKey = nextKey
        self.resume = resume
        self.cancellation = cancellation
    }

    func policy(of mapping: MappingPlan) -> Policy? {
        mapping.policy.flatMap { policies[$0] }
    }

    /// Tells the run that everything up to `position` is committed (it writes the checkpoint).
    func commit(_ position: Checkpoint.Position) throws {
        try checkpoints?.committed(at: position)
    }

    func event(_ kind: ProgressEvent.Kind, _ stage: Stage, mapping: String? = nil, done: Int = 0, total: Int = 0, links: Int? = nil) {
        report(ProgressEvent(kind: kind, step: plan.index + 1, stepCount: stepCount, stepName: plan.name,
                             stage: stage, mapping: mapping, done: done, total: total, links: links))
    }

    /// The end of mapping `index`'s create stage, with its rows rejected and values nulled.
    func createFinished(_ index: MappingID, done: Int, total: Int) {
        let mapping = plan.mappings[index]
        var event = ProgressEvent(kind: .finished, step: plan.index + 1, stepCount: stepCount, stepName: plan.name,
                                  stage: .create, mapping: mapping.name, done: done, total: total)
        event.rejected = mapping.targets.reduce(0) { $0 + counters[$1].rejected }
        event.nulled = mapping.targets.reduce(0) { $0 + counters[$1].nullsOnPurpose }
        report(event)
    }

    /// A row that keeps its source key: the watermark moves past it (source keys come in
    /// ascending order).
    func keepKey(_ key: Int64, table: String) -> Int64 {
        nextKey[table] = max(nextKey[table] ?? 1, key == .max ? key : key + 1)
        return key
    }

    /// The next free key of `table`. Keys are handed out from 1 upwards, so only a crafted
    /// checkpoint's watermark can leave none: refused, not wrapped or trapped.
    func allocateKey(table: String) throws -> Int64 {
        let next = nextKey[table] ?? 1
        guard next < .max else {
            throw MigrationError.badDestination(path: destination.path, reason: "table \(table) has no key left to hand out after \(next)")
        }
        nextKey[table] = next + 1
        return next
    }

    /// Throws `.interrupted` once a stop was requested; producers call it before each chunk.
    func checkCancelled() throws {
        if cancellation?.isCancelled == true { throw MigrationError.interrupted(checkpoint: nil) }
    }

    /// The resume position if it falls on this stage and mapping: where to continue.
    func resumePoint(_ stage: Stage, mapping: MappingID) -> Checkpoint.Position? {
        guard let resume, resume.stage == stage, resume.mapping == mapping, resume.progress != .nothingYet else { return nil }
        return resume
    }

    /// Resuming the creation of mapping `mapping`: the last source key it loaded.
    func lastSourceKeyLoaded(mapping: MappingID) -> Int64? {
        guard case .loaded(let last)? = resumePoint(.create, mapping: mapping)?.progress else { return nil }
        return last
    }

    /// True when the resume position is past this stage and mapping: it was done.
    func isDone(_ stage: Stage, mapping: MappingID) -> Bool {
        guard let resume else { return false }
        let order = Stage.allCases
        let (a, b) = (order.firstIndex(of: resume.stage)!, order.firstIndex(of: stage)!)
        guard a == b else { return a > b }
        // Rows are created in their own order (`StepPlan.createOrder`); links in the plan's.
        return stage == .create ? plan.createRank(of: resume.mapping) > plan.createRank(of: mapping) : resume.mapping > mapping
    }
}

extension Array where Element == MappingCounters {
    /// The counters of target `target` (a step's counters are one per target).
    subscript(target: TargetID) -> MappingCounters {
        get { self[target.index] }
        set { self[target.index] = newValue }
    }
}

/// A mapping expression failing on a row, before the engine knows the step and mapping.
struct RowFailure: Error {
    var key: Int64
    var expression: String
    var reason: String
}

/// Converts an expression's value into what the destination column stores.
func storedValue(_ value: Value, as type: AttributeType, epoch: Double) -> SQLValue {
    switch value {
    case .integer(let i) where !type.isInteger && type.isNumeric: return .real(Double(i))
    case .date(let seconds): return .real(seconds - epoch)
    default: return value.sqlValue
    }
}

/// The lookup of create-stage expressions: the planner allows no destination() there.
let noLookup: @Sendable (String, [Int64]) throws -> [Int64] = { mapping, _ in
    throw RowFailure(key: 0, expression: "", reason: "destination('\(mapping)', …) is only available in relationship expressions")
}
