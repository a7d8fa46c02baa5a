import ETLStore

/// One built-in function of the expression language, defined in one place: its name, its
/// type rule (which checks a call's arguments and gives the checked call its evaluation
/// and, where SQLite computes the same value, its `ExpressionForm`), and the `etl_…`
/// functions its SQL form calls, if any. Each family's file holds its functions'
/// definitions (`TextFunctions`, `DateFunctions`…); `FunctionLibrary` is the one table the
/// type checker and the SQL translator read.
struct FunctionDefinition: Sendable {
    let name: String
    /// `destination()` and `destinations()`: a call outside a relationship expression is
    /// refused before its arguments are checked.
    let looksUpDestinations: Bool
    let check: @Sendable (FunctionCall, ExpressionScope) throws(ExpressionError) -> Checked
    /// Registers the SQL functions its form calls on a connection (`registerValueFunction`):
    /// `nulls` counts the values made null on purpose (`orNull`), `rejected` keeps why a
    /// value failed the statement.
    let registerSQL: (@Sendable (Database, NullCount, SQLTranslator.RejectedValue) throws -> Void)?

    init(_ name: String, looksUpDestinations: Bool = false,
         registerSQL: (@Sendable (Database, NullCount, SQLTranslator.RejectedValue) throws -> Void)? = nil,
         check: @escaping @Sendable (FunctionCall, ExpressionScope) throws(ExpressionError) -> Checked) {
        self.name = name
        self.looksUpDestinations = looksUpDestinations
        self.registerSQL = registerSQL
        self.check = check
    }
}

/// The built-in functions, family by family. Unless said otherwise a function returns null
/// when any argument is null.
enum FunctionLibrary {
    static let definitions: [FunctionDefinition] = BranchingFunctions.definitions + TextFunctions.definitions
        + MatchesFunction.definitions + ConversionFunctions.definitions + DateFunctions.definitions
        + DestinationFunctions.definitions

    static let names = definitions.map(\.name)

    private static let byName = Dictionary(uniqueKeysWithValues: definitions.map { ($0.name, $0) })

    static func definition(_ name: String) -> FunctionDefinition? { byName[name] }

    static func check(_ name: String, _ arguments: [Checked], call syntax: Syntax,
                      scope: ExpressionScope) throws(ExpressionError) -> Checked {
        let call = FunctionCall(name: name, arguments: arguments, syntax: syntax)
        if let definition = byName[name] { return try definition.check(call, scope) }
        if let function = scope.functions[name] { return try function.check(call) }
        throw ExpressionError(message: "unknown function '\(name)'" + didYouMean(name, among: names + scope.functions.keys.sorted()),
                              column: syntax.column)
    }
}
