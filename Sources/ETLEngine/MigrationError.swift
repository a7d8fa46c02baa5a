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
    /// Stopped on request (SIGINT/SIGTERM).
    case interrupted

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
        case .interrupted:
            return "interrupted"
        }
    }
}
