/// Splits expression text into tokens. Columns count characters (grapheme clusters)
/// from 1. Integer literals too large for Int64 become doubles, as in SQLite.
struct Lexer {
    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    static func tokenize(_ text: String) throws(ExpressionError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Character? { index < characters.count ? characters[index] : nil }

    private func character(at offset: Int) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private static func isDigit(_ c: Character?) -> Bool {
        guard let c, c.isASCII else { return false }
        return c.isNumber
    }

    private static func isNameStart(_ c: Character?) -> Bool {
        guard let c else { return false }
        return c == "_" || c.isLetter
    }

    private static func isNamePart(_ c: Character?) -> Bool {
        isNameStart(c) || isDigit(c)
    }

    private mutating func next() throws(ExpressionError) -> Token {
        while let c = current, c.isWhitespace { index += 1 }
        let column = index + 1
        guard let c = current else { return Token(kind: .end, column: column) }

        if Lexer.isDigit(c) || (c == "." && Lexer.isDigit(character(at: 1))) {
            return Token(kind: number(), column: column)
        }
        if c == "'" || c == "\"" {
            return Token(kind: .string(try string(quote: c, column: column)), column: column)
        }
        if Lexer.isNameStart(c) {
            return Token(kind: .identifier(name()), column: column)
        }
        if c == "$" {
            index += 1
            guard Lexer.isNameStart(current) else {
                throw ExpressionError(message: "expected a name after '$' ($source or $item)", column: column)
            }
            return Token(kind: .variable(name()), column: column)
        }

        let pair = String(c) + (character(at: 1).map { String($0) } ?? "")
        if let symbol = Symbol(rawValue: pair), pair.count == 2 {
            index += 2
            return Token(kind: .symbol(symbol), column: column)
        }
        if let symbol = Symbol(rawValue: String(c)) {
            index += 1
            return Token(kind: .symbol(symbol), column: column)
        }
        switch c {
        case "=": throw ExpressionError(message: "unexpected '='; use '==' to compare", column: column)
        case "&": throw ExpressionError(message: "unexpected '&'; use '&&' (or 'and')", column: column)
        case "|": throw ExpressionError(message: "unexpected '|'; use '||' (or 'or')", column: column)
        default: throw ExpressionError(message: "unexpected character '\(c)'", column: column)
        }
    }

    private mutating func name() -> String {
        let start = index
        while Lexer.isNamePart(current) { index += 1 }
        return String(characters[start..<index])
    }

    /// digits [. digits] [e [+-] digits], or . digits [e …].
    private mutating func number() -> Token.Kind {
        let start = index
        var isDouble = false
        while Lexer.isDigit(current) { index += 1 }
        if current == ".", Lexer.isDigit(character(at: 1)) {
            isDouble = true
            index += 1
            while Lexer.isDigit(current) { index += 1 }
        }
        if current == "e" || current == "E" {
            let signed = character(at: 1) == "+" || character(at: 1) == "-"
            if Lexer.isDigit(character(at: signed ? 2 : 1)) {
                isDouble = true
                index += signed ? 2 : 1
                while Lexer.isDigit(current) { index += 1 }
            }
        }
        var text = String(characters[start..<index])
        if text.hasPrefix(".") { text = "0" + text }
        if !isDouble, let value = Int64(text) { return .integer(value) }
        return .double(Double(text) ?? .infinity)
    }

    /// A quoted string; the quote character doubled stands for itself.
    private mutating func string(quote: Character, column: Int) throws(ExpressionError) -> String {
        index += 1
        var value = ""
        while true {
            guard let c = current else {
                throw ExpressionError(message: "unterminated string (missing closing \(quote))", column: column)
            }
            index += 1
            if c == quote {
                if current == quote {
                    value.append(quote)
                    index += 1
                } else {
                    return value
                }
            } else {
                value.append(c)
            }
        }
    }
}
