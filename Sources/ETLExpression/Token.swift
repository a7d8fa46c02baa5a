/// The punctuation and operators of the expression language.
enum Symbol: String, Sendable {
    case or = "||", and = "&&"
    case equal = "==", notEqual = "!="
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%"
    case not = "!"
    case leftParen = "(", rightParen = ")", comma = ",", dot = "."
}

/// One lexical token and the 1-based character column where it starts.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case integer(Int64)
        case double(Double)
        case string(String)
        /// A bare word: a function name, a keyword (`true`, `and`, …) or a path segment.
        case identifier(String)
        /// `$name`, without the dollar sign.
        case variable(String)
        case symbol(Symbol)
        case end
    }

    var kind: Kind
    var column: Int

    /// How the token is named in "expected …, found …" messages.
    var display: String {
        switch kind {
        case .integer(let value): return "number \(value)"
        case .double(let value): return "number \(value)"
        case .string(let value): return "string '\(value)'"
        case .identifier(let name): return "'\(name)'"
        case .variable(let name): return "'$\(name)'"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .end: return "end of expression"
        }
    }

    func isSymbol(_ symbol: Symbol) -> Bool {
        kind == .symbol(symbol)
    }

    func isWord(_ word: String) -> Bool {
        kind == .identifier(word)
    }
}
