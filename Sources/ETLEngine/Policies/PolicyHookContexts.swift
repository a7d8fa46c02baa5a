import ETLPipeline
import ETLExpression

/// What a relate hook sees.
public struct PolicyRelateContext: Sendable {
    /// The mapping, and the entity of the destination row (the mapping's own or one of
    /// its policy's `creates`).
    public let mapping: String
    public let entity: String
    /// The destination row being related.
    public let destination: Int64
    public let source: PolicySourceRow
    let lookup: @Sendable (String, [Int64]) throws -> [Int64]

    /// Destination rows that `mapping` made from these source rows (Core Data's
    /// destinationInstancesForEntityMappingNamed:sourceInstances:).
    public func destinations(_ mapping: String, _ sources: [Int64]) throws -> [Int64] {
        try lookup(mapping, sources)
    }
}

/// What an end-of-mapping hook sees.
public struct PolicyMappingContext: Sendable {
    public let mapping: String
    /// Source rows read and destination rows written so far by the mapping.
    public let read: Int
    public let written: Int
}

/// What a validation hook sees: the built store, read-only, through SQL.
public struct PolicyValidationContext: @unchecked Sendable {
    public let step: String
    /// Runs a query on the built store (e.g. `SELECT count(*) FROM Section WHERE body = ''`).
    public let query: (String) throws -> [[Value]]
}
