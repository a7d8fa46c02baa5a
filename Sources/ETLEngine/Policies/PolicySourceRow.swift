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
