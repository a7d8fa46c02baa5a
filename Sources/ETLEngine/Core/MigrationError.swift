/// Why a run stopped. Every case names the file and the place, and says what to do.
public enum MigrationError: Error, CustomStringConvertible, Sendable {
    /// The source store cannot be read as a store of the source model.
    case badSource(path: String, reason: String)
    /// The destination cannot be written where asked.
    case badDestination(path: String, reason: String)
    /// A mapping's expression failed on one row.
    case rowFailed(step: String, mapping: String, entity: String, key: Int64, expression: String, reason: String)
    /// The built destination broke a rule; nothing was replaced.
    case validationFailed(step: String, problems: [String])
    /// More rows were rejected than the pipeline allows (options.maxRejects).
    case tooManyRejects(limit: Int, first: [Reject])
    /// Stopped on request (SIGINT/SIGTERM); the checkpoint says where.
    case interrupted(checkpoint: String?)
    /// A checkpoint that cannot be used: damaged, or of another format.
    case badCheckpoint(path: String, reason: String)
    /// A checkpoint of a different run: the pipeline, the source or the tool changed.
    case checkpointMismatch(path: String, differences: [String])
    /// An allocation failed (SQLite's); `what` says where. The work so far is kept.
    case outOfMemory(what: String)
    /// A step would leave source data unread that the pipeline does not say is to go:
    /// `unread` names each entity or property (`"Entity"`, `"Entity.property"`) with its
    /// rows or non-null values. Refused before the step read a row.
    case dataLeftUnread(pipeline: String, step: String, source: String, unread: [RemovedItem])

    public var description: String {
        switch self {
        case .badSource(let path, let reason):
            return "source store \(path): \(reason)"
        case .badDestination(let path, let reason):
            return "destination \(path): \(reason)"
        case .rowFailed(let step, let mapping, let entity, let key, let expression, let reason):
            return "\(step), mapping \(mapping): source \(entity) row \(key): expression \"\(expression)\" failed: \(reason)"
        case .validationFailed(let step, let problems):
            return "\(step): validation failed, the destination was not replaced:\n"
                + problems.map { "  - " + $0 }.joined(separator: "\n")
        case .tooManyRejects(let limit, let first):
            return "more than \(limit) rows were rejected (options.maxRejects); nothing was replaced. First rejected rows:\n"
                + first.map { "  - \($0.step), mapping \($0.mapping): source \($0.entity) row \($0.key): \($0.expression): \($0.error)" }.joined(separator: "\n")
        case .interrupted(let checkpoint):
            return "interrupted" + (checkpoint.map { "; progress is saved in \($0): run the same command again to resume" } ?? "")
        case .badCheckpoint(let path, let reason):
            return "checkpoint \(path) cannot be used: \(reason). Run again with --restart to discard it and start over"
        case .outOfMemory(let what):
            return "ran out of memory \(what). The work so far is kept: run the same command again to resume, "
                + "with fewer workers (--workers 1) or a smaller --chunk-size, or with more memory"
        case .dataLeftUnread(let pipeline, let step, let source, let unread):
            let names = unread.map { "\"\($0.name)\"" }.joined(separator: ", ")
            return "\(pipeline): step \(step) leaves data of source \(source) unread, which would not arrive: "
                + unread.map(\.described).joined(separator: "; ")
                + ". Nothing was read. Map them in the step's mappings, or, if they are to go, say so: add "
                + "\"drop\": [\(names)] at the top level of the pipeline (or in the step; into its \"drop\" list if it has one)"
        case .checkpointMismatch(let path, let differences):
            return "checkpoint \(path) belongs to a different run: " + differences.joined(separator: "; ")
                + ". Run again with --restart to discard it and start over"
        }
    }
}
