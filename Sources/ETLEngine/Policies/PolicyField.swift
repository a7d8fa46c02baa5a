import ETLPipeline
import ETLExpression

/// An attribute or to-one of the mapping's source entity, resolved by a policy's `prepare`
/// hook when the pipeline is planned: per row, `row[field]` reads a slot, no name looked up.
public struct SourceField<T: PolicyValue>: Sendable {
    public let name: String
    /// Where the create stage's source row holds the value.
    @usableFromInline let slot: Int
}

/// An attribute of the mapping's destination entity (or of one its policy `creates`),
/// resolved by `prepare` when the pipeline is planned: per row, `output[field] = …` writes
/// the value where the loader's insert takes it, no name looked up.
public struct AttributeField<T: PolicyValue>: Sendable {
    public let name: String
    public let entity: String
    /// The attribute's position among the entity's attributes (`TargetPlan.attributes`).
    @usableFromInline let index: Int
    /// How many attributes the entity has.
    @usableFromInline let count: Int
}

extension PolicySourceRow {
    /// The field's value; nil when it is null.
    @inlinable public subscript<T>(_ field: SourceField<T>) -> T? {
        // A relate hook's row holds other slots: it looks the name up.
        T(policyValue: bySlot ? values[field.slot] : self[field.name])
    }
}

extension PolicyOutput.Row {
    /// The field's value in this row; setting it on a row made with `Row(entity:)` makes it a
    /// row of the field's entity. Unset attributes get the declared value or default.
    @inlinable public subscript<T>(_ field: AttributeField<T>) -> T? {
        get {
            guard field.index < fields.count, let value = fields[field.index] else { return nil }
            return T(policyValue: value)
        }
        set {
            if fields.isEmpty {
                fields = Array(repeating: nil, count: field.count)
                fieldsEntity = field.entity
                if entity == nil { entity = field.entity }
            }
            // Another entity's field would land on the wrong attribute: the row is rejected.
            guard fieldsEntity == field.entity else { misplacedField = misplacedField ?? "\(field.entity).\(field.name)"; return }
            fields[field.index] = newValue?.policyValue ?? .null
        }
    }
}

extension PolicyOutput {
    /// The field's value in the row the declared mapping made (`rows[0]`).
    @inlinable public subscript<T>(_ field: AttributeField<T>) -> T? {
        get { rows[0][field] }
        set { rows[0][field] = newValue }
    }
}
