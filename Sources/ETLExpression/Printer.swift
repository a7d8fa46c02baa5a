/// Expression text from a syntax tree, such that `Parser.parse(Printer.print(t))` is `t` again
/// (compared by `Syntax.isSameTree(as:)`, which ignores positions). Producers that build
/// trees (inferred mappings, the mapping-model import, step fusion) print them only where a
/// pipeline needs text; they never assemble the text themselves, so quoting is done here once.
///
/// Parentheses only where precedence needs them (binary operators associate to the left, as
/// the parser reads them); operators as spelt (`and` or `&&`); strings in single quotes, a
/// quote doubled, as the lexer reads them. Two values the parser never produces print as the
/// text that means them: a negative number as the negation of its magnitude (`-5`), and a
/// double that is not finite as a number too large (`1e999`; NaN as `0.0 / 0.0`).
/// Key path names and function names are printed as they are: a name the lexer cannot read
/// (a space, a leading digit) has no text form (`Syntax.isName` tells).
public enum Printer {
    public static func print(_ syntax: Syntax) -> String {
        var text = ""
        write(syntax, into: &text)
        return text
    }

    /// Binding strength: higher binds tighter. Binary levels as the parser's, lowest first.
    static func precedence(of op: Syntax.BinaryOperator) -> Int {
        switch op {
        case .or: return 1
        case .and: return 2
        case .equal, .notEqual: return 3
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return 4
        case .plus, .minus: return 5
        case .times, .divide, .remainder: return 6
        }
    }

    private static let unaryPrecedence = 7
    private static let primaryPrecedence = 8

    private static func precedence(of syntax: Syntax) -> Int {
        switch syntax.kind {
        case .binary(let op, _, _, _, _): return precedence(of: op)
        case .unary: return unaryPrecedence
        case .literal(.integer(let value)) where value < 0: return unaryPrecedence
        case .literal(.double(let value)) where value.sign == .minus && !value.isNaN: return unaryPrecedence
        default: return primaryPrecedence
        }
    }

    private static func write(_ syntax: Syntax, minimum: Int, into text: inout String) {
        if precedence(of: syntax) < minimum {
            text += "("
            write(syntax, into: &text)
            text += ")"
        } else {
            write(syntax, into: &text)
        }
    }

    private static func write(_ syntax: Syntax, into text: inout String) {
        switch syntax.kind {
        case .literal(let value):
            text += literal(value)
        case .path(let root, let segments):
            text += root == .source ? "$source" : "$item"
            for segment in segments { text += "." + segment.name }
        case .unary(let op, let spelling, let operand):
            text += spelling.isEmpty ? (op == .not ? "!" : "-") : spelling
            if spelling == "not" { text += " " }
            write(operand, minimum: unaryPrecedence, into: &text)
        case .binary(let op, let spelling, _, let left, let right):
            let level = precedence(of: op)
            write(left, minimum: level, into: &text)
            text += " " + (spelling.isEmpty ? op.rawValue : spelling) + " "
            // Left associative: an operand of the same level on the right keeps its parentheses.
            write(right, minimum: level + 1, into: &text)
        case .call(let name, let arguments):
            text += name + "("
            for (index, argument) in arguments.enumerated() {
                if index > 0 { text += ", " }
                write(argument, into: &text)
            }
            text += ")"
        }
    }

    /// `value` as the lexer reads it back.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .integer(let number):
            // The magnitude of Int64.min is no Int64: the lexer would read it as a double.
            if number == .min { return "(-9223372036854775807 - 1)" }
            return String(number)
        case .double(let number):
            if number.isNaN { return "(0.0 / 0.0)" }
            if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
            // `description` is the shortest text that reads back as the same double, and
            // always has a `.` or an exponent, so the lexer reads a double.
            return number.description
        case .string(let string):
            return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .date(let seconds):
            return literal(.double(seconds))
        case .binary, .row, .rows:
            // No literal of the language makes these: a tree holds none.
            return "null"
        }
    }
}
