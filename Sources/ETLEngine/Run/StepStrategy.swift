import ETLPipeline

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

/// What earlier tries of the current step learned inside SQLite, so that the step starts
/// over (and resumes) another way: kept in the checkpoint until the step is done.
public struct StepLessons: Hashable, Sendable, Codable {
    /// The whole step runs row by row.
    public var rowByRow: RowByRowReason?
    /// The step's policies run row by row (the rest inside SQLite).
    public var policiesRowByRow: RowByRowReason?

    public init(rowByRow: RowByRowReason? = nil, policiesRowByRow: RowByRowReason? = nil) {
        self.rowByRow = rowByRow
        self.policiesRowByRow = policiesRowByRow
    }

    /// The lessons with `lesson` learned too.
    func learning(_ lesson: StepLesson) -> StepLessons {
        var lessons = self
        switch lesson {
        case .rowByRow(let reason): lessons.rowByRow = reason
        case .policiesRowByRow(let reason): lessons.policiesRowByRow = reason
        }
        return lessons
    }
}

/// What a try of a step inside SQLite met that makes the step start over another way.
enum StepLesson: Equatable {
    case rowByRow(RowByRowReason)
    case policiesRowByRow(RowByRowReason)
}

/// How a step runs, as decided before any row is read.
enum StepStrategy {
    /// Inside SQLite, by these statements (mappings the plan lists in `rowByRow` are still
    /// created row by row).
    case insideSQLite(PushdownPlan)
    /// Every mapping row by row; nil when push-down is off (nothing to explain).
    case rowByRow(RowByRowReason?)
}

/// The one place that decides how a step runs, for `etl run`, `etl batch` (both through the
/// `Engine`) and `etl plan` (`StepExecution`): from the options, what earlier tries of the
/// step learned, and the push-down planner (`PushdownPlan.make`). The data may still send a
/// step row by row when the run looks at it (`PushdownStage.prepare`: a null uniqueBy key, a
/// rejected value) — `etl plan` says so in words.
struct StrategyDecider {
    /// False for `--no-pushdown`.
    let pushdown: Bool
    /// What earlier tries of the step learned (none for `etl plan`).
    var lessons = StepLessons()

    /// - Parameter plan: makes the step's push-down plan, with the policies row by row for
    ///   the reason given; throws `NotPushable` when there is none.
    func strategy(plan: (RowByRowReason?) throws -> PushdownPlan) throws -> StepStrategy {
        guard pushdown else { return .rowByRow(nil) }
        if let reason = lessons.rowByRow { return .rowByRow(reason) }
        do {
            return .insideSQLite(try plan(lessons.policiesRowByRow))
        } catch let notPushable as PushdownPlan.NotPushable {
            return .rowByRow(.untranslatable(mapping: notPushable.mapping, detail: notPushable.detail))
        }
    }
}
