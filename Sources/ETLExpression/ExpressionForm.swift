/// The shape of a checked expression that SQLite can evaluate exactly as the engine would:
/// what lets the engine push a mapping down into `INSERT … SELECT` instead of running it
/// row by row.
///
/// Operations whose SQL twin gives the same value have a form: literals, key paths,
/// `! && ||`, comparisons, `== null`, double arithmetic, `if`, `coalesce`,
/// `destination(s)`, `union`, the program's own functions (`ExpressionFunction`), the conversions
/// (`integer`, `double`, `boolean`, `date`, alone or in `orNull`) and `trim`, `normalize`,
/// `casefold`, `diacriticfold`, `matches`, `utf16length` (their definitions register the Swift code of these last kinds in SQLite). A
/// conversion can fail on a row: the engine looks for such a row before it pushes a
/// mapping down. Integer arithmetic has no form (the evaluator rejects an overflowing row
/// where SQLite would switch to REAL), nor have the other text and date functions; an
/// expression using one has `form == nil` and its mapping runs row by row.
public indirect enum ExpressionForm: Sendable, Hashable {
    case literal(Value)
    /// A key path of the source row and its static type.
    case path(SourcePath, ExprType)
    case not(ExpressionForm)
    case and(ExpressionForm, ExpressionForm)
    case or(ExpressionForm, ExpressionForm)
    /// `x == null` (true) or `x != null` (false), written with the literal null.
    case isNull(ExpressionForm, Bool)
    /// `== != < <= > >=`, with SQL's spelling of the operator.
    case compare(String, ExpressionForm, ExpressionForm)
    /// `+ - * /` of a double result, with SQL's spelling of the operator.
    case arithmetic(String, ExpressionForm, ExpressionForm)
    /// An integer widened to double where integer and double meet (`CAST(… AS REAL)`).
    case toDouble(ExpressionForm)
    case conditional(ExpressionForm, ExpressionForm, ExpressionForm)
    case coalesce([ExpressionForm])
    /// `integer()`, `double()`, `boolean()` or `date()` of a value of the given type;
    /// `orNull`: a value that cannot be converted gives null instead of failing.
    case convert(Conversion, ExpressionForm, from: ExprType, orNull: Bool)
    /// A built-in function SQLite has no twin of, written as its definition's `SQLCall`
    /// says (`trim()`, `normalize()`, `casefold()`, `diacriticfold()`, `matches()`,
    /// `utf16length()`).
    case call(SQLCall, [ExpressionForm])
    /// A function the program added (`ExpressionFunction`), by name.
    case function(String, [ExpressionForm])
    /// `destination('mapping', row)` (`many` false) or `destinations('mapping', rows)`.
    case destinations(mapping: String, argument: ExpressionForm, many: Bool)
    /// `union(destinations('A', …), destinations('B', …), …)`: the rows of every one.
    case union([ExpressionForm])

    /// The SQL spelling of a comparison operator.
    static func sql(_ op: Syntax.BinaryOperator) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        default: return op.rawValue
        }
    }

    /// Whether evaluating it may fail on a row: it holds a conversion without `orNull`.
    public var mayFail: Bool {
        contains {
            if case .convert(_, _, _, false) = $0 { return true }
            return false
        }
    }

    /// Whether this form or one within it satisfies `predicate`.
    public func contains(where predicate: (ExpressionForm) -> Bool) -> Bool {
        predicate(self) || children.contains { $0.contains(where: predicate) }
    }

    /// Every key path it reads, once per place it is read.
    public var readPaths: [SourcePath] {
        if case .path(let path, _) = self { return [path] }
        return children.flatMap(\.readPaths)
    }

    private var children: [ExpressionForm] {
        switch self {
        case .literal, .path: return []
        case .not(let a), .isNull(let a, _), .toDouble(let a), .convert(_, let a, _, _), .destinations(_, let a, _):
            return [a]
        case .and(let a, let b), .or(let a, let b), .compare(_, let a, let b), .arithmetic(_, let a, let b): return [a, b]
        case .conditional(let a, let b, let c): return [a, b, c]
        case .coalesce(let list), .call(_, let list), .function(_, let list), .union(let list): return list
        }
    }

    /// The conjuncts of an `&&` chain (the whole expression when it is no `&&`).
    public var conjuncts: [ExpressionForm] {
        if case .and(let a, let b) = self { return a.conjuncts + b.conjuncts }
        return [self]
    }
}

extension Checked {
    /// This expression with its form.
    func with(form: ExpressionForm?) -> Checked {
        var copy = self
        copy.form = form
        return copy
    }

    /// The form with integer results widened to double when `target` is double, as
    /// `build(as:_:)` does.
    func form(as target: ExprType) -> ExpressionForm? {
        guard let form else { return nil }
        return type == .integer && target == .double ? .toDouble(form) : form
    }
}

/// How the SQL of a built-in function's call is written (`ExpressionForm.call`), from its
/// definition: known by the name of the SQL function it calls.
public struct SQLCall: Sendable, Hashable {
    /// The `etl_…` function the SQL calls.
    public let name: String
    /// The arguments that go in as stored when they are a string attribute's column: the
    /// function reads them as `SQLTranslator.read` would, one CASE per value less.
    let storedText: Set<Int>
    /// The SQL of the call, from its arguments' (`SQLTranslator.sql`).
    let write: @Sendable ([SQLArgument]) -> String

    init(_ name: String, storedText: Set<Int>, write: @escaping @Sendable ([SQLArgument]) -> String) {
        self.name = name
        self.storedText = storedText
        self.write = write
    }

    public static func == (a: SQLCall, b: SQLCall) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// An argument of a call written as SQL: its SQL, which is `storedColumn` when the
/// argument is a string attribute going in as stored.
struct SQLArgument {
    let sql: String
    let storedColumn: String?
}
