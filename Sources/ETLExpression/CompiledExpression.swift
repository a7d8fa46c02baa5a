/// An expression of a pipeline file, parsed, resolved against the source model,
/// type-checked and turned into a tree of closures with pre-resolved slot indices.
///
/// ## Semantics: SQLite-compatible on purpose
///
/// The engine may push an expression down into SQL instead of evaluating it here, so
/// both must agree exactly. The rules therefore follow SQLite's:
/// - Arithmetic: integer with integer gives integer (`/` truncates toward zero, `%` is
///   the remainder with the dividend's sign); a double operand makes the result double
///   (`%` on doubles takes the remainder of the operands truncated to integers, then
///   gives a double). Division or `%` by zero gives null; any null operand gives null.
///   Integer overflow is an evaluation error (where SQLite would switch to REAL).
/// - Comparisons: numbers compare exactly across integer and double; strings by UTF-8
///   bytes (BINARY collation); dates with dates, booleans with booleans (false < true),
///   rows of the same entity with `==`/`!=` only. Null on either side gives null, except
///   that `x == null` / `x != null` written with the literal `null` mean IS NULL / IS NOT NULL.
/// - `&&`, `||`, `!`: SQL's three-valued logic (false && null = false, true || null = true).
///   A filter passes a row only for `.boolean(true)` (`Value.isTrue`).
/// - `if(c, a, b)` is `CASE WHEN c THEN a ELSE b END` (null condition → `b`).
/// - Text: characters are Unicode scalars (SQLite's `length`/`substr` count code points);
///   `upper`/`lower` change ASCII letters only; `replace` matches bytes. `trim` (Unicode
///   white space), `normalize`, `casefold` and the conversions (`Conversion`: whole-text
///   numbers, strict dates, failing rather than inventing a value) have no SQLite twin:
///   the engine registers these Swift functions in SQLite.
/// - A value is always of its expression's static type or null: when integer and double
///   meet (`coalesce(1, 2.5)`, `if(c, 1, 2.5)`) an integer result is widened to double,
///   which SQL gets with `CAST(… AS REAL)`.
public struct CompiledExpression: Sendable {
    /// The expression as written.
    public let text: String
    /// Its static type.
    public let type: ExprType
    /// The slots (indices into the shared `SlotTable`) this expression reads, in order of
    /// first use.
    public let slotsRead: [Int]
    /// The expression as SQLite can evaluate it, or nil (see `ExpressionForm`).
    public let form: ExpressionForm?
    private let evaluator: Evaluate

    /// Parses, resolves and type-checks `text`, registering every key path it reads in
    /// `slots` (each distinct path once across all expressions sharing the table). On
    /// error nothing is registered.
    public static func compile(_ text: String, scope: ExpressionScope,
                               slots: SlotTable) throws(ExpressionError) -> CompiledExpression {
        let syntax = try Parser.parse(text)
        let checked = try TypeChecker(scope: scope).check(syntax)
        let linker = Linker(table: slots)
        let evaluator = checked.build(linker)
        return CompiledExpression(text: text, type: checked.type, slotsRead: linker.used, form: checked.form, evaluator: evaluator)
    }

    private init(text: String, type: ExprType, slotsRead: [Int], form: ExpressionForm?, evaluator: @escaping Evaluate) {
        self.text = text
        self.type = type
        self.slotsRead = slotsRead
        self.form = form
        self.evaluator = evaluator
    }

    /// Evaluates the expression for one row. Throws `EvaluationError` (integer overflow,
    /// `destination()` finding several rows) or whatever `context.lookup` throws.
    public func evaluate(_ context: EvaluationContext) throws -> Value {
        try evaluator(context)
    }
}
