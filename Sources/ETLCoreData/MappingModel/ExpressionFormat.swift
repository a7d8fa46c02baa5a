/// `NSExpression`'s format syntax, for the few forms a mapping model stores as text
/// (`valueexpressionstring`, from Xcode versions that wrote strings instead of archives):
/// `$source.color`, `FUNCTION($manager, "selector:", "Name", $source.owner)`,
/// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", …), $manager.sourceContext, NO)`, key paths,
/// quoted strings, numbers, `nil`, `YES` / `NO`. The result is the same `ArchivedExpression`
/// an archive of that expression decodes to; anything else is an error naming what was found.
enum ExpressionFormat {
    struct Unreadable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    static func parse(_ text: String) throws -> ArchivedExpression {
        var parser = Parser(characters: Array(text))
        let expression = try parser.expression()
        parser.skipSpaces()
        guard parser.position == parser.characters.count else {
            throw Unreadable(reason: "unexpected '\(excerpt(String(parser.characters[parser.position...])))' (etl reads FUNCTION(…), $variables, key paths and constants here)")
        }
        return expression
    }

    /// An expression or predicate as an error quotes it: whole when short, its start otherwise
    /// (a hostile one may be megabytes).
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : text.prefix(200) + "… (\(text.utf8.count) bytes)"
    }

    /// FUNCTION calls nested deeper than this are refused: the parser recurses.
    static let maximumDepth = 64

    private struct Parser {
        let characters: [Character]
        var position = 0
        var depth = 0

        mutating func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func identifier() -> String {
            let start = position
            while position < characters.count, characters[position].isLetter || characters[position].isNumber
                    || characters[position] == "_" || characters[position] == "." || characters[position] == ":" {
                position += 1
            }
            return String(characters[start..<position])
        }

        mutating func expect(_ c: Character) throws {
            skipSpaces()
            guard position < characters.count, characters[position] == c else {
                throw Unreadable(reason: "expected '\(c)' at character \(position + 1)")
            }
            position += 1
        }

        mutating func expression() throws -> ArchivedExpression {
            skipSpaces()
            guard position < characters.count else { throw Unreadable(reason: "the expression ends too early") }
            let c = characters[position]
            if c == "$" {
                position += 1
                let path = identifier().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard let name = path.first, !name.isEmpty else { throw Unreadable(reason: "a $ without a variable name") }
                let variable = ArchivedExpression.variable(name)
                return path.count == 1 ? variable
                    : .function(operand: variable, selector: "valueForKeyPath:", arguments: [.keyPath(path.dropFirst().joined(separator: "."))])
            }
            if c == "\"" || c == "'" {
                position += 1
                var value = ""
                while position < characters.count, characters[position] != c {
                    if characters[position] == "\\", position + 1 < characters.count { position += 1 }
                    value.append(characters[position])
                    position += 1
                }
                guard position < characters.count else { throw Unreadable(reason: "a string without its closing quote") }
                position += 1
                return .constant(.string(value))
            }
            if c.isNumber || c == "-" {
                let start = position
                position += 1
                while position < characters.count, characters[position].isNumber || characters[position] == "." { position += 1 }
                let text = String(characters[start..<position])
                if let i = Int64(text) { return .constant(.integer(i)) }
                if let d = Double(text) { return .constant(.real(d)) }
                throw Unreadable(reason: "'\(text)' is not a number")
            }
            let word = identifier()
            switch word.uppercased() {
            case "": throw Unreadable(reason: "unexpected '\(c)' at character \(position + 1)")
            case "NIL", "NULL": return .constant(.null)
            case "YES", "TRUE": return .constant(.bool(true))
            case "NO", "FALSE": return .constant(.bool(false))
            case "SELF": return .evaluatedObject
            case "FETCH":
                // FETCH(request, context, countOnly): the source fetch as Xcode writes it.
                try expect("(")
                let request = try expression()
                try expect(",")
                _ = try expression()
                try expect(",")
                _ = try expression()
                try expect(")")
                return .fetch(request: request)
            case "FUNCTION":
                depth += 1
                defer { depth -= 1 }
                guard depth <= ExpressionFormat.maximumDepth else {
                    throw Unreadable(reason: "FUNCTION calls nested deeper than \(ExpressionFormat.maximumDepth) at character \(position + 1)")
                }
                try expect("(")
                let operand = try expression()
                try expect(",")
                guard case .constant(.string(let selector)) = try expression() else {
                    throw Unreadable(reason: "FUNCTION's second argument must be a selector name in quotes")
                }
                var arguments: [ArchivedExpression] = []
                skipSpaces()
                while position < characters.count, characters[position] == "," {
                    position += 1
                    arguments.append(try expression())
                    skipSpaces()
                }
                try expect(")")
                return .function(operand: operand, selector: selector, arguments: arguments)
            default:
                return .keyPath(word)
            }
        }
    }
}
