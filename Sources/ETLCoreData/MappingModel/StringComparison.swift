/// A string comparison of an `NSPredicate` with its options, as a pipeline expression:
/// `==[c]`, `!=[cd]`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` and `MATCHES`, each with
/// `[c]` (case-insensitive), `[d]` (diacritic-insensitive) or `[cd]`.
///
/// Foundation compares the texts after folding away what the options ignore, so both
/// operands are folded by the pipeline functions that call Foundation's own folding:
/// `casefold` for `[c]`, `diacriticfold` for `[d]` (and NFC, as Foundation compares
/// canonically equivalent texts alike; `normalize` without options). `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS` and `LIKE` (`*` any characters, `?` one) become `matches()` of the
/// folded key path against the literal, quoted, folded alike: at import where it is ASCII
/// (whose folding is known: `[c]` lowercases it, `[d]` keeps it), else when the row is read.
/// `MATCHES[c]` is the pattern with ICU's `(?i)`, the flag NSPredicate sets.
///
/// Refused, with the reason: a right operand that is no string literal (for all but `==`,
/// `!=` and `MATCHES`), a literal holding a backslash (which a quoted pattern cannot hold
/// as written), `MATCHES[d]` (a regular expression has no diacritic-insensitive mode), and
/// options other than `c` and `d`.
struct StringComparison {
    /// The operator as written, upper-cased (`==` for `=`; `!=` for `<>`).
    var operation: String
    /// The letters between the brackets, lower-cased ("" for none).
    var options: String

    struct NoExactTranslation: Error, CustomStringConvertible {
        var description: String
    }

    var written: String { operation + (options.isEmpty ? "" : "[\(options)]") }

    static let operations: Set<String> = ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]

    /// Checks the options as written; throws for one etl does not know.
    init(_ operation: String, options: String) throws {
        self.operation = operation
        self.options = options.lowercased()
        guard Set(self.options).isSubset(of: ["c", "d"]), self.options.count == Set(self.options).count else {
            throw NoExactTranslation(description: "\(operation)[\(options)]: etl translates the options c and d (case- and diacritic-insensitive), not '\(options)'")
        }
        if operation == "MATCHES", self.options.contains("d") {
            throw NoExactTranslation(description: "\(written): a regular expression has no diacritic-insensitive mode etl could match Foundation's with")
        }
    }

    private var isCaseInsensitive: Bool { options.contains("c") }
    private var isDiacriticInsensitive: Bool { options.contains("d") }

    /// `text` folded as the options say (`normalize` without any: NFC).
    private func folded(_ text: String) -> String {
        switch (isCaseInsensitive, isDiacriticInsensitive) {
        case (false, false): return "normalize(\(text))"
        case (true, false): return "casefold(\(text))"
        case (false, true): return "diacriticfold(\(text))"
        case (true, true): return "casefold(diacriticfold(\(text)))"
        }
    }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// The expression comparing `left` (an operand as translated) with `right` (as
    /// translated; `literal`: its text when it is a string literal).
    func expression(left: String, right: String, literal: String?) throws -> String {
        switch operation {
        case "==", "!=":
            // Options change only how texts compare: with null, a number or a boolean
            // (`name ==[c] nil`, `tags.@count ==[c] 2`) the comparison is the plain one.
            guard [left, right].allSatisfy({ $0.hasPrefix("$source.") || $0.hasPrefix("'") }) else {
                return "\(left) \(operation) \(right)"
            }
            return "\(folded(left)) \(operation) \(folded(right))"
        case "MATCHES":
            guard isCaseInsensitive else { return "matches(\(left), \(right))" }
            guard let literal else {
                throw NoExactTranslation(description: "\(written) needs a pattern written as a string literal")
            }
            return "matches(\(left), \(Self.quoted("(?i)" + literal)))"
        default:
            guard let literal else {
                throw NoExactTranslation(description: "\(written) compares with a key path, not a string literal: etl translates it only with a literal")
            }
            guard !literal.contains("\\") else {
                throw NoExactTranslation(description: "\(written) '\(ExpressionFormat.excerpt(literal))': a backslash in the text has no translation etl knows")
            }
            // The pattern as pieces: regular-expression syntax, and texts to match as they are.
            var pieces: [(text: String, isLiteral: Bool)] = [("(?s)", false)]
            switch operation {
            case "BEGINSWITH": pieces += [(literal, true), (".*", false)]
            case "ENDSWITH": pieces += [(".*", false), (literal, true)]
            case "CONTAINS": pieces += [(".*", false), (literal, true), (".*", false)]
            default:  // LIKE
                var run = ""
                for c in literal {
                    guard c == "*" || c == "?" else { run.append(c); continue }
                    if !run.isEmpty { pieces.append((run, true)) }
                    run = ""
                    pieces.append((c == "*" ? ".*" : ".", false))
                }
                if !run.isEmpty { pieces.append((run, true)) }
            }
            var parts: [String] = []
            var text = ""
            for piece in pieces {
                if !piece.isLiteral {
                    text += piece.text
                } else if piece.text.utf8.allSatisfy({ $0 < 0x80 }) {
                    // ASCII folds as known: case folding lowercases it, the rest keep it.
                    text += "\\Q" + (isCaseInsensitive ? piece.text.lowercased() : piece.text) + "\\E"
                } else {
                    parts += [Self.quoted(text + "\\Q"), folded(Self.quoted(piece.text))]
                    text = "\\E"
                }
            }
            parts.append(Self.quoted(text))
            let pattern = parts.count == 1 ? parts[0] : "concat(\(parts.joined(separator: ", ")))"
            return "matches(\(folded(left)), \(pattern))"
        }
    }
}
