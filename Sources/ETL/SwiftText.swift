/// Text from an input (a mapping model's class, entity, attribute and selector names) made
/// safe to write into Swift source: a comment that stays one comment, a string literal that
/// stays one literal, an identifier that is one (and a file name without a folder in it).
///
/// A name is whatever the input says: a newline in it would end a comment and put the rest
/// into the code, a quote would end a literal, a bidirectional-text control (U+202E) would
/// make the code read otherwise than it compiles, a `/` in a file name would write into a
/// folder (issue 45). Such characters are written as `\u{…}`, which shows them and means
/// them only inside a literal.
enum SwiftText {
    /// A scalar written as `\u{…}` in comments and literals: controls (newlines, NUL),
    /// format characters (bidirectional overrides and isolates, zero-width ones), line and
    /// paragraph separators.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    static func escaped(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }

    /// Text for a `//` comment: one line, whatever it holds.
    static func comment(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if isHidden(scalar) { out += escaped(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// A Swift string literal of `text`, quotes included.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            default:
                if isHidden(scalar) { out += escaped(scalar) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    /// An identifier made of `text`'s ASCII letters, digits and underscores (every other
    /// character an underscore), never a keyword, never empty: a type name, and a file name
    /// with no folder in it.
    static func identifier(_ text: String) -> String {
        var out = String(text.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") ? Character(scalar) : "_"
        })
        if out.isEmpty { out = "Policy" }
        if out.first!.isNumber { out = "_" + out }
        if keywords.contains(out) || out.allSatisfy({ $0 == "_" }) { out += "Policy" }
        return out
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false",
        "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type", "Protocol", "some", "any",
    ]
}
