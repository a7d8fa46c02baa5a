import ETLStore
import ETLPipeline
import ETLExpression

/// Before a mapping that converts values is pushed down, every value of every passing row
/// is evaluated once (`PushdownPlan.Create.rejects`): a value the row-by-row engine would
/// reject sends the step row by row, and the values `orNull` makes null are counted. For
/// a step of conversions that costs as much as the create itself, so the scan is split
/// at the middle source key: the lower half runs on a connection of its own (the source
/// attached as `src`, the same SQL functions), the upper half on the run's connection,
/// one per core.
///
/// The result is the whole scan's: the same count, and when values are rejected, the
/// error of the first one in key order (the lower half's when it has one).
struct RejectScan {
    /// Up to this many source rows are scanned in one piece: a second connection would
    /// cost more than it saves.
    static let wholeUpTo: Int64 = 50_000

    let create: PushdownPlan.Create
    let sourcePath: String
    let functions: [String: ExpressionFunction]

    /// The values `orNull` made null; throws the `StoreError` of the first rejected value.
    func run(on db: Database, nulls: NullCount) throws -> Int {
        guard let query = create.rejects?.sql else { return 0 }
        nulls.count = 0
        let total = try db.scalarInt(create.count.sql)
        // The first key of the upper half.
        let middle = total > Self.wholeUpTo ? try db.rows(create.bound.sql, [.integer(.min), .integer(total / 2)]).first?.first : nil
        guard case .integer(let split)? = middle, split > .min else {
            _ = try db.rows(query, [.integer(.min), .integer(.max)])
            return nulls.count
        }
        let side = try Database(path: ":memory:", mode: .create)
        let sideNulls = NullCount()
        try SQLTranslator.registerValueFunction(on: side, nulls: sideNulls)
        try SQLTranslator.register(functions, on: side)
        try PushdownStage.attachSource(sourcePath, to: side)
        try side.execute(PageCache.pragmas("src"))
        let lower = SideWork(on: side) { try $0.rows(query, [.integer(.min), .integer(split - 1)]) }
        let upper = Result { try db.rows(query, [.integer(split), .integer(.max)]) }
        _ = try lower.wait()
        _ = try upper.get()
        return nulls.count + sideNulls.count
    }
}
