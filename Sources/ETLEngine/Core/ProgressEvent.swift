/// The stages every step goes through, in order.
public enum Stage: String, Sendable, CaseIterable, Codable {
    /// extract → transform → load: destination rows are created from source rows.
    case create
    /// Relationships of the new rows are set through the recorded associations.
    case relate
    /// The new store is checked before anything is replaced.
    case validate
    /// Metadata, integrity, fsync, atomic rename.
    case finalize
}

/// What the engine reports while it works: enough for a progress bar or a log line.
/// Delivered on the engine's loading thread, in order.
public struct ProgressEvent: Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case started, advanced, finished
        /// A run picked up where an earlier one stopped; `done`/`total` say how far it was.
        case resumed
        /// Before the create stage: the step removes `removed` (an entity or property the
        /// step does not carry over), which holds `done` rows or non-null values.
        case dropped
    }
    public var kind: Kind
    public var step: Int
    public var stepCount: Int
    public var stepName: String
    public var stage: Stage
    /// The entity mapping being worked on, if the stage works per mapping.
    public var mapping: String?
    /// Units done and expected (source rows for create, associations for relate).
    public var done: Int
    public var total: Int
    /// With `.resumed`: source rows that had been loaded after the last checkpoint and are
    /// loaded again (at most one chunk per worker).
    public var redone: Int?
    /// A relate stage run inside SQLite counts statements in `done`/`total`; this is the
    /// links they set so far.
    public var links: Int?
    /// With `.dropped`: `"Entity"` or `"Entity.property"` of the step's source.
    public var removed: String?
    /// With `.finished` of a create stage: the mapping's rows rejected and values made
    /// null on purpose (`orNull`, `"unreadable": "null"`) in the run so far.
    public var rejected: Int? = nil
    public var nulled: Int? = nil
}
