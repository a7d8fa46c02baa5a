import ETLPipeline
import ETLExpression

/// The source row a create or relate hook works on: its key and every attribute and
/// to-one relationship of its entity, by name.
public struct PolicySourceRow: Sendable {
    /// The source row's key.
    public let key: Int64
    /// The forEach item's key, inside a mapping with forEach.
    public let item: Int64?
    @usableFromInline let values: [Value]
    let names: [String: Int]
    /// The values are the create stage's slots, where `SourceField`s point.
    @usableFromInline let bySlot: Bool

    init(key: Int64, item: Int64?, values: [Value], names: [String: Int], bySlot: Bool = false) {
        self.key = key
        self.item = item
        self.values = values
        self.names = names
        self.bySlot = bySlot
    }

    /// The value of an attribute (or the key of a to-one) of the source entity; `.null` for
    /// a name the entity does not have.
    public subscript(_ name: String) -> Value {
        names[name].map { values[$0] } ?? .null
    }

    public func string(_ name: String) -> String? {
        if case .string(let s) = self[name] { return s }
        return nil
    }

    public func integer(_ name: String) -> Int64? {
        if case .integer(let i) = self[name] { return i }
        return nil
    }

    public func double(_ name: String) -> Double? {
        switch self[name] {
        case .double(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }
}

/// The rows a create hook leaves: starts with the row the declared mapping makes.
public struct PolicyOutput: Sendable {
    public struct Row: Sendable {
        /// nil: the mapping's destination entity.
        public var entity: String?
        /// Attribute values by name; attributes not set get the declared value or default.
        public var values: [String: Value]
        /// When set, one destination row per distinct key across the whole mapping: later
        /// rows with the same key are associated with the first (the lookup table lives in
        /// the work file and is checkpointed with the rows). Rows of a `creates` entity share
        /// the table with every mapping of the step making that entity with unique keys
        /// (`StepPlan.uniqueKeyScopes`), like Core Data's find-or-create in the migration's context.
        public var uniqueKey: Value?
        /// Attribute values by position (`AttributeField`), nil where not set: the declared
        /// row's for a prepared policy, so no name is looked up per row.
        @usableFromInline var fields: [Value?] = []
        /// The entity whose fields `fields` holds.
        @usableFromInline var fieldsEntity: String?
        /// A field of another entity set on this row (the row is rejected).
        @usableFromInline var misplacedField: String?

        init(fields: [Value?], entity: String, uniqueKey: Value?) {
            self.values = [:]
            self.fields = fields
            self.fieldsEntity = entity
            self.uniqueKey = uniqueKey
        }

        public init(entity: String? = nil, values: [String: Value] = [:], uniqueKey: Value? = nil) {
            self.entity = entity
            self.values = values
            self.uniqueKey = uniqueKey
        }
    }

    public var rows: [Row]

    /// Adds a row of `entity` (nil: the mapping's own).
    public mutating func insert(_ entity: String? = nil, _ values: [String: Value], uniqueKey: Value? = nil) {
        rows.append(Row(entity: entity, values: values, uniqueKey: uniqueKey))
    }

    /// Drops every row: the source row makes nothing (filtering in code).
    public mutating func removeAll() { rows.removeAll() }
}

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
