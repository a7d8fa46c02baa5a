import Foundation

/// A source filter's `NSPredicate` format string as a pipeline filter expression.
///
/// The forms pipelines can express: comparisons (`==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=`
/// `=>`) between key paths of the source row and constants (numbers, quoted strings, `nil`,
/// `YES` / `NO` / `TRUE` / `FALSE`), joined by `AND` / `OR` / `NOT` (or `&&` `||` `!`) and
/// parentheses; `TRUEPREDICATE` and `FALSEPREDICATE`; `a MATCHES 'pattern'` as
/// `matches(a, 'pattern')`; `tags.@count` as `count($source.tags)`; `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS`, `LIKE` with a string literal, and the options `[c]` `[d]` `[cd]`
/// on those, `MATCHES`, `==` and `!=` (`StringComparison`). A key path `name` becomes
/// `$source.name`; `title.length` of a string attribute, `utf16length($source.title)`.
///
///     try PredicateTranslation.filter("maker != nil AND year >= 2000")
///     // "$source.maker != null && $source.year >= 2000"
///
/// Anything else (`IN`, `ANY`, `SUBQUERY`, `$variables`, `%@`, `FUNCTION`) is an error
/// naming the word.
enum PredicateTranslation {
    struct Untranslatable: Error, CustomStringConvertible {
        var word: String
        var description: String {
            "'\(ExpressionFormat.excerpt(word))' has no pipeline equivalent etl knows (it translates comparisons of key paths with constants, AND, OR, NOT)"
        }
    }

    /// nil: every row passes (`TRUEPREDICATE`, or nothing written).
    /// `isString` tells a key path that ends in a string attribute: `title.length` is the
    /// string's length as NSString counts it, `utf16length($source.title)`.
    static func filter(_ predicate: String, isString: (String) -> Bool = { _ in false }) throws -> String? {
        let trimmed = predicate.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.uppercased() == "TRUEPREDICATE" { return nil }
        var out: [String] = []
        var i = trimmed.startIndex
        let characters = trimmed
        // `a MATCHES 'p'` is `matches(a, 'p')`, `a ==[c] b` folds both: the left operand
        // waits for the right one. `literal`: the text of a string literal.
        var pending: (comparison: StringComparison, left: String)?
        func operand(_ token: String, literal: String? = nil) throws {
            if let (comparison, left) = pending {
                out.append(try comparison.expression(left: left, right: token, literal: literal))
                pending = nil
            } else {
                out.append(token)
            }
        }
        // `BEGINSWITH[cd]`: the options in brackets right after an operator, and the
        // comparison waiting for its right operand (its left one taken from `out`).
        func compare(_ operation: String) throws {
            var options = ""
            if i < characters.endIndex, characters[i] == "[" {
                guard let close = characters[i...].firstIndex(of: "]") else { throw Untranslatable(word: String(characters[i...])) }
                options = String(characters[characters.index(after: i)..<close])
                i = characters.index(after: close)
            }
            // The left operand: a key path or a literal; for == and != any operand (`count(…)`, a number).
            let operators: Set<String> = ["(", ")", "!", "&&", "||", "==", "!=", "<", "<=", ">", ">="]
            guard pending == nil, let left = out.popLast(), left.hasPrefix("$source.") || left.hasPrefix("'")
                    || (["==", "!="].contains(operation) && !operators.contains(left)) else {
                throw Untranslatable(word: operation)
            }
            pending = (try StringComparison(operation, options: options), left)
        }
        while i < characters.endIndex {
            let c = characters[i]
            if c.isWhitespace { i = characters.index(after: i); continue }
            if c == "\"" || c == "'" {
                var j = characters.index(after: i)
                var value = ""
                while j < characters.endIndex, characters[j] != c {
                    if characters[j] == "\\", characters.index(after: j) < characters.endIndex { j = characters.index(after: j) }
                    value.append(characters[j])
                    j = characters.index(after: j)
                }
                guard j < characters.endIndex else { throw Untranslatable(word: String(characters[i...])) }
                i = characters.index(after: j)
                try operand("'" + value.replacingOccurrences(of: "'", with: "''") + "'", literal: value)
                continue
            }
            if c.isNumber || (c == "-" && characters.index(after: i) < characters.endIndex && characters[characters.index(after: i)].isNumber) {
                var j = characters.index(after: i)
                while j < characters.endIndex, characters[j].isNumber || characters[j] == "." { j = characters.index(after: j) }
                try operand(String(characters[i..<j]))
                i = j
                continue
            }
            if c.isLetter || c == "_" {
                var j = i
                while j < characters.endIndex, characters[j].isLetter || characters[j].isNumber || characters[j] == "_" || characters[j] == "." {
                    j = characters.index(after: j)
                }
                var word = String(characters[i..<j])
                i = j
                // `tags.@count`: the number of rows of a to-many.
                if word.hasSuffix("."), characters[j...].hasPrefix("@count") {
                    word.removeLast()
                    i = characters.index(j, offsetBy: "@count".count)
                    let path = word.hasPrefix("SELF.") ? String(word.dropFirst(5)) : word
                    guard !path.isEmpty, !path.contains("..") else { throw Untranslatable(word: word + ".@count") }
                    try operand("count($source.\(path))")
                    continue
                }
                switch word.uppercased() {
                case "AND": out.append("&&")
                case "OR": out.append("||")
                case "NOT": out.append("!")
                case "NIL", "NULL": try operand("null")
                case "YES", "TRUE": try operand("true")
                case "NO", "FALSE": try operand("false")
                case "TRUEPREDICATE": out.append("true")
                case "FALSEPREDICATE": out.append("false")
                case "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE":
                    try compare(word.uppercased())
                case "IN", "BETWEEN", "ANY", "ALL", "SOME", "NONE",
                     "SUBQUERY", "FUNCTION", "SELF":
                    throw Untranslatable(word: word)
                default:
                    let path = word.hasPrefix("SELF.") ? String(word.dropFirst(5)) : word
                    guard !path.isEmpty, !path.hasSuffix("."), !path.contains("..") else { throw Untranslatable(word: word) }
                    if path.hasSuffix(".length"), isString(String(path.dropLast(".length".count))) {
                        try operand("utf16length($source.\(path.dropLast(".length".count)))")
                    } else {
                        try operand("$source.\(path)")
                    }
                }
                continue
            }
            // Operators, longest first.
            let rest = characters[i...]
            let operators: [(String, String)] = [("==", "=="), ("!=", "!="), ("<>", "!="), ("<=", "<="), ("=<", "<="), (">=", ">="), ("=>", ">="),
                                                 ("&&", "&&"), ("||", "||"), ("=", "=="), ("<", "<"), (">", ">"), ("!", "!"), ("(", "("), (")", ")")]
            guard let (written, translated) = operators.first(where: { rest.hasPrefix($0.0) }) else {
                throw Untranslatable(word: String(rest.prefix { !$0.isWhitespace }))
            }
            guard pending == nil else { throw Untranslatable(word: pending!.comparison.written + " " + written) }
            i = characters.index(i, offsetBy: written.count)
            if translated == "==" || translated == "!=", i < characters.endIndex, characters[i] == "[" {
                try compare(translated)
            } else {
                out.append(translated)
            }
        }
        if let pending { throw Untranslatable(word: pending.comparison.written) }
        return try negationsWrapped(out).joined(separator: " ")
    }

    /// Parentheses and negations nested deeper than this are refused: the pipeline's
    /// expression parser takes no deeper (`Parser.maxDepth`), and the error here names the filter.
    static let maximumDepth = 64

    struct TooDeep: Error, CustomStringConvertible {
        var description: String {
            "parentheses and NOTs nested deeper than \(PredicateTranslation.maximumDepth)"
        }
    }

    /// `NOT a < 10` negates the comparison, but `!` binds tighter than `<` in a pipeline
    /// expression: what follows a negation, up to the next AND / OR at its level (or the
    /// parenthesis that closes its level), is put in parentheses. One pass: each open
    /// negation remembers the parenthesis level it was opened at.
    static func negationsWrapped(_ tokens: [String]) throws -> [String] {
        var out: [String] = []
        out.reserveCapacity(tokens.count * 2)
        var level = 0
        var negations: [Int] = []  // the level each open negation's parenthesis was opened at
        func closeNegations(at level: Int) {
            while negations.last == level {
                negations.removeLast()
                out.append(")")
            }
        }
        for (i, token) in tokens.enumerated() {
            switch token {
            case "&&", "||":
                closeNegations(at: level)
                out.append(token)
            case ")":
                closeNegations(at: level)
                out.append(token)
                level -= 1
            case "(":
                out.append(token)
                level += 1
            default:
                out.append(token)
                if token == "!", i + 1 < tokens.count, tokens[i + 1] != "(" {
                    out.append("(")
                    negations.append(level)
                }
            }
            guard max(level, 0) + negations.count <= maximumDepth else { throw TooDeep() }
        }
        while !negations.isEmpty {
            negations.removeLast()
            out.append(")")
        }
        return out
    }
}
