import ETLPipeline
import ETLExpression

/// Why a step, or its policies, run row by row instead of inside SQLite: a value, kept as it
/// is in the checkpoint (a resumed step goes on the way it was going), and put into words
/// only for the summary and `etl plan`.
public enum RowByRowReason: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `--no-pushdown`.
    case pushdownOff
    /// The planner found no exact SQL form (`PushdownPlan.NotPushable`); `mapping` when the
    /// reason is one mapping's own.
    case untranslatable(mapping: String?, detail: String)
    /// A uniqueBy mapping's passing rows include one whose key is null.
    case nullUniqueKey(mapping: String)
    /// A value inside SQLite that the row-by-row engine rejects (found by the reject scan
    /// before a create, or by a try inside SQLite that then started the step over).
    case valuesRejected(mapping: String, detail: String)
    /// A source row that a policy called by SQLite could not make as one row under its key
    /// (`PolicyInSQLite`): the step's policies run row by row, the rest inside SQLite.
    case policyIrregular(detail: String)

    public var description: String {
        switch self {
        case .pushdownOff: return "push-down is turned off (--no-pushdown)"
        case .untranslatable(let mapping, let detail): return (mapping.map { "mapping \($0) " } ?? "") + detail
        case .nullUniqueKey(let mapping): return "mapping \(mapping) has rows whose uniqueBy key is null"
        case .valuesRejected(let mapping, let detail): return "mapping \(mapping) has values that are rejected (\(detail))"
        case .policyIrregular(let detail): return detail
        }
    }
}
