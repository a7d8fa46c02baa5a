import Foundation
import ETLExpression

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
/// The predicate is read into words and operands (each a syntax tree), which are then put
/// together by the precedence of the pipeline language, as its parser reads them, and printed.
/// Anything else (`IN`, `ANY`, `SUBQUERY`, `$variables`, `%@`, `FUNCTION`), or words that
/// make no expression, is an error naming the word.
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
        try syntax(predicate, isString: isString).map(Printer.print)
    }

    /// A piece of the translated predicate: an operand, or an operator or parenthesis (as the
    /// pipeline language writes it) between operands.
    enum Piece {
        case operand(Syntax)
        case symbol(String)

        var symbol: String? {
            if case .symbol(let s) = self { return s }
            return nil
        }
    }

    /// The filter as a tree; nil: every row passes.
    static func syntax(_ predicate: String, isString: (String) -> Bool = { _ in false }) throws -> Syntax? {
        let trimmed = predicate.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.uppercased() == "TRUEPREDICATE" { return nil }
        var out: [Piece] = []
        var i = trimmed.startIndex
        let characters = trimmed
        // `a MATCHES 'p'` is `matches(a, 'p')`, `a ==[c] b` folds both: the left operand
        // waits for the right one. `literal`: the text of a string literal.
        var pending: (comparison: StringComparison, left: Syntax)?
        func operand(_ token: Syntax) throws {
            if let (comparison, left) = pending {
                out.append(.operand(try comparison.expression(left: left, right: token)))
                pending = nil
            } else {
                out.append(.operand(token))
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
            guard pending == nil, case .operand(let left)? = out.popLast(),
                  StringComparison.isPathOrString(left) || ["==", "!="].contains(operation) else {
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
                try operand(.string(value))
                continue
            }
            if c.isNumber || (c == "-" && characters.index(after: i) < characters.endIndex && characters[characters.index(after: i)].isNumber) {
                var j = characters.index(after: i)
                while j < characters.endIndex, characters[j].isNumber || characters[j] == "." { j = characters.index(after: j) }
                // A number as the pipeline language reads it (`-5` the negation of 5).
                let number = String(characters[i..<j])
                guard let read = try? Parser.parse(number) else { throw Untranslatable(word: number) }
                try operand(read)
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
                    try operand(.call("count", sourcePath(path)))
                    continue
                }
                switch word.uppercased() {
                case "AND": out.append(.symbol("&&"))
                case "OR": out.append(.symbol("||"))
                case "NOT": out.append(.symbol("!"))
                case "NIL", "NULL": try operand(.null)
                case "YES", "TRUE": try operand(.literal(.boolean(true)))
                case "NO", "FALSE": try operand(.literal(.boolean(false)))
                case "TRUEPREDICATE": out.append(.operand(.literal(.boolean(true))))
                case "FALSEPREDICATE": out.append(.operand(.literal(.boolean(false))))
                case "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE":
                    try compare(word.uppercased())
                case "IN", "BETWEEN", "ANY", "ALL", "SOME", "NONE",
                     "SUBQUERY", "FUNCTION", "SELF":
                    throw Untranslatable(word: word)
                default:
                    let path = word.hasPrefix("SELF.") ? String(word.dropFirst(5)) : word
                    guard !path.isEmpty, !path.hasSuffix("."), !path.contains("..") else { throw Untranslatable(word: word) }
                    if path.hasSuffix(".length"), isString(String(path.dropLast(".length".count))) {
                        try operand(.call("utf16length", sourcePath(String(path.dropLast(".length".count)))))
                    } else {
                        try operand(sourcePath(path))
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
                out.append(.symbol(translated))
            }
        }
        if let pending { throw Untranslatable(word: pending.comparison.written) }
        var tree = Tree(pieces: try negationsWrapped(out))
        return try tree.whole()
    }

    /// `$source` followed by the names of a key path.
    static func sourcePath(_ path: String) -> Syntax {
        .path(.source, path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The pieces put together as the pipeline's parser reads the same operators: `||`, then
    /// `&&`, then `==` `!=`, then `<` `<=` `>` `>=`, each associating to the left; `!` before
    /// an operand; parentheses. (The depth is bounded by `negationsWrapped`.)
    struct Tree {
        let pieces: [Piece]
        var position = 0

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="]]

        init(pieces: [Piece]) {
            self.pieces = pieces
        }

        private var current: Piece? { position < pieces.count ? pieces[position] : nil }

        private var word: String {
            switch current {
            case .symbol(let s)?: return s
            case .operand(let syntax)?: return Printer.print(syntax)
            case nil: return "end of the predicate"
            }
        }

        mutating func whole() throws -> Syntax {
            let syntax = try binary(level: 0)
            guard current == nil else { throw Untranslatable(word: word) }
            return syntax
        }

        private mutating func binary(level: Int) throws -> Syntax {
            guard level < Tree.levels.count else { return try unary() }
            var left = try binary(level: level + 1)
            while let symbol = current?.symbol, Tree.levels[level].contains(symbol), let op = Syntax.BinaryOperator(rawValue: symbol) {
                position += 1
                left = .binary(op, left, try binary(level: level + 1))
            }
            return left
        }

        private mutating func unary() throws -> Syntax {
            if current?.symbol == "!" {
                position += 1
                return .not(try unary())
            }
            switch current {
            case .operand(let syntax)?:
                position += 1
                return syntax
            case .symbol("(")?:
                position += 1
                let inner = try binary(level: 0)
                guard current?.symbol == ")" else { throw Untranslatable(word: word) }
                position += 1
                return inner
            default:
                throw Untranslatable(word: word)
            }
        }
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
    static func negationsWrapped(_ tokens: [Piece]) throws -> [Piece] {
        var out: [Piece] = []
        out.reserveCapacity(tokens.count * 2)
        var level = 0
        var negations: [Int] = []  // the level each open negation's parenthesis was opened at
        func closeNegations(at level: Int) {
            while negations.last == level {
                negations.removeLast()
                out.append(.symbol(")"))
            }
        }
        for (i, token) in tokens.enumerated() {
            switch token.symbol ?? "" {
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
                if token.symbol == "!", i + 1 < tokens.count, tokens[i + 1].symbol != "(" {
                    out.append(.symbol("("))
                    negations.append(level)
                }
            }
            guard max(level, 0) + negations.count <= maximumDepth else { throw TooDeep() }
        }
        while !negations.isEmpty {
            negations.removeLast()
            out.append(.symbol(")"))
        }
        return out
    }
}
