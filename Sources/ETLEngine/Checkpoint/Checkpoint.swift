import Foundation

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
    public struct Position: Codable, Sendable, Equatable {
        /// 0-based step index.
        public var step: Int
        public var stage: Stage
        /// 0-based mapping index within the step (create and relate).
        public var mapping: Int
        /// create: the last source key loaded. relate: the last association (destination, source, item).
        public var key: [Int64]
        /// Units done and expected in this stage and mapping, for `etl status`.
        public var done: Int
        public var total: Int

        public static func start(ofStep step: Int) -> Position {
            Position(step: step, stage: .create, mapping: 0, key: [], done: 0, total: 0)
        }

        /// True at the very beginning of a step, before anything of it was written.
        var isStartOfStep: Bool { stage == .create && mapping == 0 && key.isEmpty }
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
    /// Counters of the current step's mappings.
    public var counters: [MappingCounters]
    /// Next free key of every destination table of the current step: the watermark above
    /// which rows were loaded after this checkpoint.
    public var nextKeys: [String: Int64]
    public var started: Date
    public var written: Date

    /// "step 2/2 (v2 to v3), relate Files, 61 % done".
    public var summary: String {
        var text = "step \(position.step + 1)/\(steps.count) (\(steps[position.step])), \(position.stage.rawValue)"
        if position.stage == .create || position.stage == .relate, position.mapping < mappings.count {
            text += " \(mappings[position.mapping])"
        }
        if position.total > 0 {
            // Clamped: the numbers come from a file, and Int(_:) of a huge Double traps.
            text += ", \(Int(min(100, max(0, Double(position.done) / Double(position.total) * 100)))) % done"
        }
        return text
    }
}
