import Foundation

/// Counters of one entity mapping in one step: the lines of the summary table.
public struct MappingCounters: Sendable, Equatable, Codable {
    public var step: String
    public var mapping: String
    public var source: String
    public var destination: String
    /// Source rows read.
    public var read = 0
    /// Source rows (or forEach items) the filter rejected.
    public var filtered = 0
    /// Source rows (or forEach items) that passed, each associated with one destination row.
    public var associated = 0
    /// Destination rows created (fewer than `associated` with uniqueBy).
    public var written = 0
    /// Source rows rejected (an expression or a policy threw), kept in the reject file.
    public var rejected = 0
    /// Values made null on purpose: `orNull(…)` around a conversion that could not convert.
    public var nullsOnPurpose = 0
    /// Non-null values of properties the step removed (an inferred hop's dropped
    /// attributes, relationships and entities; removals the pipeline declared intended).
    public var dropped = 0
    /// Relationship links set in the relate stage (each target of each relationship
    /// expression once, so a resumed run counts the same as an uninterrupted one).
    public var related = 0
    /// Seconds spent creating and relating.
    public var seconds: Double = 0

    public init(step: String, mapping: String, source: String, destination: String) {
        self.step = step
        self.mapping = mapping
        self.source = source
        self.destination = destination
    }
}

/// What a finished run reports.
public struct RunSummary: Sendable {
    public var source: String
    public var destination: String
    /// Where the previous destination was moved, when `--backup` was given.
    public var backup: String?
    /// Where this run started, when it resumed an interrupted one.
    public var resumed: Checkpoint.Position?
    /// Source rows loaded after the last checkpoint of the interrupted run, removed and loaded again.
    public var redoneRows: Int
    public var mappings: [MappingCounters]
    public var seconds: Double
    /// True when the source was already at the target version and nothing was written.
    public var upToDate = false
    /// The reject file, when rows were rejected.
    public var rejectFile: String?
    /// Things the user must know about the result (e.g. missing Core Data version hashes).
    public var notes: [String] = []
    /// Every entity and property a step dropped, with its rows or non-null values (the steps
    /// this process ran: a resumed run's earlier steps are in their mappings' `dropped`).
    public var drops: [DroppedData] = []
}

/// Source data a step dropped because the pipeline (or its mapping model) says so.
public struct DroppedData: Sendable, Equatable, Codable {
    public var step: String
    /// `"Entity"` (rows) or `"Entity.property"` (non-null values, a to-many's links).
    public var name: String
    public var count: Int
    /// Who said so: the pipeline's or the step's `"drop"`, or the mapping model.
    public var declaredBy: String

    /// "step v1 to v2 dropped Tag.color: 30 non-null values (as the pipeline's "drop" says)".
    public var described: String {
        let what = name.contains(".") ? (count == 1 ? "non-null value" : "non-null values") : (count == 1 ? "row" : "rows")
        return "step \(step) dropped \(name): \(count) \(what) (\(declaredBy))"
    }
}
