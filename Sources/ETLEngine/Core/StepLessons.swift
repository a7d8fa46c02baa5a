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
