import Foundation
import ETLPipeline
import ETLExpression

/// Where a run is, written after every loaded chunk so that running the same command
/// again continues from there.
///
/// How a checkpoint and the rows agree after a crash at any instant: loads are
/// idempotent. Destination keys are deterministic (handed out in source order), and the
/// checkpoint records the next free key of every table; a chunk committed after the last
/// checkpoint was written is deleted on resume (rows at or above those keys, associations
/// of later source keys) and loaded again. Relate is idempotent by construction (links are
/// `INSERT OR IGNORE`, to-ones are set only while null, in a fixed order), and validate
/// only reads. So any checkpoint, even an older one, resumes to the same result: a
/// checkpoint is never ahead of the rows, because it is written after their commit.
public struct Checkpoint: Codable, Sendable {
    public static let formatVersion = 1

    /// Where inside the run.
    public struct Position: Sendable, Equatable {
        /// 0-based step index.
        public var step: Int
        public var stage: Stage
        /// The mapping within the step (create and relate; the first at validate and finalize).
        public var mapping: MappingID
        /// How far the stage got in the mapping.
        public var progress: Progress
        /// Units done and expected in this stage and mapping, for `etl status`.
        public var done: Int
        public var total: Int

        public init(step: Int, stage: Stage, mapping: MappingID, progress: Progress, done: Int, total: Int) {
            self.step = step
            self.stage = stage
            self.mapping = mapping
            self.progress = progress
            self.done = done
            self.total = total
        }

        public static func start(ofStep step: Int) -> Position {
            Position(step: step, stage: .create, mapping: MappingID(0), progress: .nothingYet, done: 0, total: 0)
        }

        /// True at the very beginning of a step, before anything of it was written.
        var isStartOfStep: Bool { stage == .create && mapping == MappingID(0) && progress == .nothingYet }
    }

    /// How far a stage got in its mapping: what a resume continues after.
    public enum Progress: Sendable, Equatable {
        /// Nothing of the mapping is done yet (and validate and finalize, which have no mapping).
        case nothingYet
        /// create, either executor: the last source key loaded (2⁶³−1 once a pushed-down
        /// mapping's rows are all in).
        case loaded(lastSourceKey: Int64)
        /// relate row by row: the last association linked, of target `target`.
        case linked(target: TargetID, destination: Int64, source: Int64, item: Int64)
        /// relate pushed down: how many of the mapping's statements ran.
        case statementsDone(Int)
    }

    public var format = Checkpoint.formatVersion
    public var identity: RunIdentity
    public var position: Position
    /// Step names, for messages.
    public var steps: [String]
    /// Mapping names of the current step.
    public var mappings: [String]
    /// Counters of the steps already finished.
    public var finished: [MappingCounters]
    /// Counters of the current step's targets, in target order (`StepPlan.targets`).
    public var counters: [MappingCounters]
    /// Next free key of every destination table of the current step: the watermark above
    /// which rows were loaded after this checkpoint.
    public var nextKeys: [String: Int64]
    /// What tries of the current step inside SQLite learned (a value the row-by-row engine
    /// rejects: the step runs row by row; a source row only row by row can make for a
    /// policy SQLite called: its policies do), so that a resume goes on the same way.
    public var lessons = StepLessons()
    public var started: Date
    public var written: Date

    /// "step 2/2 (v2 to v3), relate Files, 61 % done".
    public var summary: String {
        // The file may name a step it does not list: `etl status` shows it rather than trapping.
        let name = steps.indices.contains(position.step) ? steps[position.step] : "not in this checkpoint"
        var text = "step \(Self.ordinal(position.step))/\(steps.count) (\(name)), \(position.stage.rawValue)"
        if let mapping = mappingName {
            text += " \(mapping)"
        }
        if position.total > 0 {
            // Clamped: the numbers come from a file, and Int(_:) of a huge Double traps.
            text += ", \(Int(min(100, max(0, Double(position.done) / Double(position.total) * 100)))) % done"
        }
        return text
    }

    /// The name of the mapping the position is in (create and relate), if the step has it.
    public var mappingName: String? {
        guard position.stage == .create || position.stage == .relate else { return nil }
        return mappings.indices.contains(position.mapping.index) ? mappings[position.mapping.index] : nil
    }
}

/// On disk a position keeps format 1's `key` array, so checkpoints of earlier versions
/// resume: its length tells the progress apart within a stage (create: one key; relate:
/// four row by row, one pushed down; none: nothing yet).
extension Checkpoint.Position: Codable {
    /// A position whose key does not fit its stage.
    struct Unreadable: Error {
        let reason: String
    }

    private enum CodingKeys: String, CodingKey {
        case step, stage, mapping, key, done, total
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        step = try c.decode(Int.self, forKey: .step)
        stage = try c.decode(Stage.self, forKey: .stage)
        mapping = MappingID(try c.decode(Int.self, forKey: .mapping))
        done = try c.decode(Int.self, forKey: .done)
        total = try c.decode(Int.self, forKey: .total)
        let key = try c.decode([Int64].self, forKey: .key)
        switch (stage, key.count) {
        case (_, 0):
            progress = .nothingYet
        case (.create, 1):
            progress = .loaded(lastSourceKey: key[0])
        case (.create, _):
            throw Unreadable(reason: "its create position has \(key.count) keys, not one")
        case (.relate, 1):
            progress = .statementsDone(Int(key[0]))
        case (.relate, 4):
            progress = .linked(target: TargetID(Int(key[0])), destination: key[1], source: key[2], item: key[3])
        case (.relate, _):
            throw Unreadable(reason: "its relate position has \(key.count) keys")
        case (.validate, _), (.finalize, _):
            throw Unreadable(reason: "its \(stage.rawValue) position names a key")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(step, forKey: .step)
        try c.encode(stage, forKey: .stage)
        try c.encode(mapping.index, forKey: .mapping)
        try c.encode(done, forKey: .done)
        try c.encode(total, forKey: .total)
        let key: [Int64]
        switch progress {
        case .nothingYet: key = []
        case .loaded(let last): key = [last]
        case .linked(let target, let destination, let source, let item): key = [Int64(target.index), destination, source, item]
        case .statementsDone(let count): key = [Int64(count)]
        }
        try c.encode(key, forKey: .key)
    }
}
