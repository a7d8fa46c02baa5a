import ETLExpression

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
    private func folded(_ text: Syntax) -> Syntax {
        switch (isCaseInsensitive, isDiacriticInsensitive) {
        case (false, false): return .call("normalize", text)
        case (true, false): return .call("casefold", text)
        case (false, true): return .call("diacriticfold", text)
        case (true, true): return .call("casefold", .call("diacriticfold", text))
        }
    }

    /// A key path of the source row (not the row itself) or a string literal: what
    /// `BEGINSWITH` and the others compare, and what the options fold.
    static func isPathOrString(_ operand: Syntax) -> Bool {
        if case .path(.source, let segments) = operand.kind { return !segments.isEmpty }
        return operand.stringLiteral != nil
    }

    /// The expression comparing `left` with `right` (operands as translated).
    func expression(left: Syntax, right: Syntax) throws -> Syntax {
        let literal = right.stringLiteral
        switch operation {
        case "==", "!=":
            let op: Syntax.BinaryOperator = operation == "==" ? .equal : .notEqual
            // Options change only how texts compare: with null, a number or a boolean
            // (`name ==[c] nil`, `tags.@count ==[c] 2`) the comparison is the plain one.
            guard [left, right].allSatisfy(Self.isPathOrString) else {
                return .binary(op, left, right)
            }
            return .binary(op, folded(left), folded(right))
        case "MATCHES":
            guard isCaseInsensitive else { return .call("matches", left, right) }
            guard let literal else {
                throw NoExactTranslation(description: "\(written) needs a pattern written as a string literal")
            }
            return .call("matches", left, .string("(?i)" + literal))
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
            var parts: [Syntax] = []
            var text = ""
            for piece in pieces {
                if !piece.isLiteral {
                    text += piece.text
                } else if piece.text.utf8.allSatisfy({ $0 < 0x80 }) {
                    // ASCII folds as known: case folding lowercases it, the rest keep it.
                    text += "\\Q" + (isCaseInsensitive ? piece.text.lowercased() : piece.text) + "\\E"
                } else {
                    parts += [.string(text + "\\Q"), folded(.string(piece.text))]
                    text = "\\E"
                }
            }
            parts.append(.string(text))
            let pattern = parts.count == 1 ? parts[0] : .call("concat", parts)
            return .call("matches", folded(left), pattern)
        }
    }
}
