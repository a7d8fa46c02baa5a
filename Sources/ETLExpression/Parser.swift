import ETLModel

/// Recursive-descent parser. Precedence, lowest first:
/// `||` `or`; `&&` `and`; `==` `!=`; `<` `<=` `>` `>=`; `+` `-`; `*` `/` `%`;
/// unary `!` `not` `-`; then literals, `$source…`/`$item…` paths, calls and parentheses.
/// Binary operators associate to the left. Function names are checked here (so that a
/// misspelt one is reported as such); their arguments are checked by the type checker.
public struct Parser {
    private let tokens: [Token]
    private var position = 0
    /// Nesting (parentheses, prefix operators, arguments) and operators so far: both bounded,
    /// so a hostile pipeline cannot overflow the stack of the parser, the type checker or
    /// the evaluator, which all recurse over the tree.
    private var depth = 0
    private var operators = 0
    static let maxDepth = 64
    static let maxOperators = 500

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    public static func parse(_ text: String) throws(ExpressionError) -> Syntax {
        var parser = Parser(tokens: try Lexer.tokenize(text))
        if parser.current.kind == .end {
            throw ExpressionError(message: "empty expression", column: 1)
        }
        let syntax = try parser.expression()
        if parser.current.kind != .end {
            let token = parser.current
            let message = token.isSymbol(.rightParen)
                ? "unmatched ')'"
                : "expected an operator or the end of the expression, found \(token.display)"
            throw ExpressionError(message: message, column: token.column)
        }
        return syntax
    }

    private static let keywords = ["true", "false", "null", "and", "or", "not"]

    private var current: Token { tokens[position] }

    private mutating func advance() -> Token {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    // MARK: Binary levels

    private typealias Level = [(symbol: Symbol?, word: String?, op: Syntax.BinaryOperator)]

    private static let levels: [Level] = [
        [(.or, "or", .or)],
        [(.and, "and", .and)],
        [(.equal, nil, .equal), (.notEqual, nil, .notEqual)],
        [(.less, nil, .less), (.lessOrEqual, nil, .lessOrEqual),
         (.greater, nil, .greater), (.greaterOrEqual, nil, .greaterOrEqual)],
        [(.plus, nil, .plus), (.minus, nil, .minus)],
        [(.times, nil, .times), (.divide, nil, .divide), (.remainder, nil, .remainder)],
    ]

    private mutating func expression() throws(ExpressionError) -> Syntax {
        try binary(level: 0)
    }

    private func match(_ level: Level) -> (Syntax.BinaryOperator, String)? {
        for entry in level {
            if let symbol = entry.symbol, current.isSymbol(symbol) { return (entry.op, symbol.rawValue) }
            if let word = entry.word, current.isWord(word) { return (entry.op, word) }
        }
        return nil
    }

    private mutating func binary(level: Int) throws(ExpressionError) -> Syntax {
        guard level < Parser.levels.count else { return try unary() }
        var left = try binary(level: level + 1)
        while let (op, spelling) = match(Parser.levels[level]) {
            let operatorColumn = advance().column
            operators += 1
            guard operators <= Parser.maxOperators else {
                throw ExpressionError(message: "expression too long: more than \(Parser.maxOperators) operators; split it over several mappings or a policy", column: operatorColumn)
            }
            let right = try binary(level: level + 1)
            left = Syntax(kind: .binary(op, spelling: spelling, operatorColumn: operatorColumn, left, right),
                          column: left.column)
        }
        return left
    }

    private mutating func unary() throws(ExpressionError) -> Syntax {
        let token = current
        depth += 1
        defer { depth -= 1 }
        guard depth <= Parser.maxDepth else {
            throw ExpressionError(message: "expression nested deeper than \(Parser.maxDepth) levels", column: token.column)
        }
        if token.isSymbol(.not) || token.isWord("not") {
            _ = advance()
            let spelling = token.isWord("not") ? "not" : "!"
            return Syntax(kind: .unary(.not, spelling: spelling, try unary()), column: token.column)
        }
        if token.isSymbol(.minus) {
            _ = advance()
            return Syntax(kind: .unary(.negate, spelling: "-", try unary()), column: token.column)
        }
        return try primary()
    }

    // MARK: Primaries

    private mutating func primary() throws(ExpressionError) -> Syntax {
        let token = advance()
        let column = token.column
        switch token.kind {
        case .integer(let value):
            return Syntax(kind: .literal(.integer(value)), column: column)
        case .double(let value):
            return Syntax(kind: .literal(.double(value)), column: column)
        case .string(let value):
            return Syntax(kind: .literal(.string(value)), column: column)
        case .variable(let name):
            return try path(variable: name, column: column)
        case .identifier(let name):
            switch name {
            case "true": return Syntax(kind: .literal(.boolean(true)), column: column)
            case "false": return Syntax(kind: .literal(.boolean(false)), column: column)
            case "null": return Syntax(kind: .literal(.null), column: column)
            default: break
            }
            if current.isSymbol(.leftParen) {
                return try call(name: name, column: column)
            }
            if FunctionLibrary.names.contains(name) {
                throw ExpressionError(message: "expected '(' after function name '\(name)'", column: current.column)
            }
            if Parser.keywords.contains(name) {
                throw ExpressionError(message: "expected a value before '\(name)'", column: column)
            }
            let hint = closestName(to: name, among: Parser.keywords).map { " (did you mean '\($0)'?)" }
                ?? "; key paths start with $source or $item, as in $source.\(name)"
            throw ExpressionError(message: "unknown name '\(name)'\(hint)", column: column)
        case .symbol(.leftParen):
            let inner = try expression()
            guard current.isSymbol(.rightParen) else {
                throw ExpressionError(message: "expected ')' to close '(' at column \(column), found \(current.display)",
                                      column: current.column)
            }
            _ = advance()
            return inner
        case .symbol, .end:
            throw ExpressionError(message: "expected a value, found \(token.display)", column: column)
        }
    }

    private mutating func path(variable: String, column: Int) throws(ExpressionError) -> Syntax {
        let root: PathRoot
        switch variable {
        case "source": root = .source
        case "item": root = .item
        default:
            let hint = closestName(to: variable, among: ["source", "item"]).map { " (did you mean '$\($0)'?)" }
                ?? " (expected $source or $item)"
            throw ExpressionError(message: "unknown variable '$\(variable)'\(hint)", column: column)
        }
        var segments: [Syntax.Segment] = []
        while current.isSymbol(.dot) {
            _ = advance()
            guard case .identifier(let name) = current.kind else {
                throw ExpressionError(message: "expected a name after '.' in key path, found \(current.display)",
                                      column: current.column)
            }
            segments.append(Syntax.Segment(name: name, column: advance().column))
        }
        return Syntax(kind: .path(root, segments), column: column)
    }

    private mutating func call(name: String, column: Int) throws(ExpressionError) -> Syntax {
        // Names are resolved by the type checker: a program may add functions.
        _ = advance()  // (
        var arguments: [Syntax] = []
        if current.isSymbol(.rightParen) {
            _ = advance()
            return Syntax(kind: .call(name, arguments), column: column)
        }
        while true {
            arguments.append(try expression())
            if current.isSymbol(.comma) {
                _ = advance()
                continue
            }
            guard current.isSymbol(.rightParen) else {
                throw ExpressionError(message: "expected ')' after arguments of \(name)", column: current.column)
            }
            _ = advance()
            return Syntax(kind: .call(name, arguments), column: column)
        }
    }
}
