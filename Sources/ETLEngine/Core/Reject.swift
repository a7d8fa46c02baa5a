import Foundation

/// A source row a mapping could not migrate (an expression or a policy threw): kept in the
/// reject file with its error and values, so nothing disappears silently.
public struct Reject: Codable, Sendable, Equatable {
    public var step: String
    public var mapping: String
    /// "create" (no row was made) or "relate" (the row exists, its links were not set).
    public var stage: String
    /// The source entity and the row's key.
    public var entity: String
    public var key: Int64
    /// The expression or policy that failed.
    public var expression: String
    public var error: String
    /// The source values the mapping read, by key path.
    public var values: [String: String]
}
