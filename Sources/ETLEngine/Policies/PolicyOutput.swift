import ETLPipeline
import ETLExpression

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
