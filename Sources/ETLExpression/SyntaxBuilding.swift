/// Trees made by code (inferred mappings, the mapping-model import, step fusion) rather than
/// parsed from text, and the comparison of two trees by what they say. A built tree has no
/// place in any text: its columns are 0; `Printer` makes its text where a pipeline needs one.
extension Syntax {
    public init(_ kind: Kind) {
        self.init(kind: kind, column: 0)
    }

    public static func literal(_ value: Value) -> Syntax {
        Syntax(.literal(value))
    }

    public static func string(_ text: String) -> Syntax {
        literal(.string(text))
    }

    public static let null = literal(.null)

    /// `$source.a.b` (no names: `$source`, the row's own key).
    public static func path(_ root: PathRoot, _ names: [String]) -> Syntax {
        Syntax(.path(root, names.map { Segment(name: $0, column: 0) }))
    }

    public static func source(_ names: String...) -> Syntax {
        path(.source, names)
    }

    public static func call(_ name: String, _ arguments: [Syntax]) -> Syntax {
        Syntax(.call(name, arguments))
    }

    public static func call(_ name: String, _ arguments: Syntax...) -> Syntax {
        call(name, arguments)
    }

    /// `left op right`, the operator spelt as its symbol (`&&`, not `and`).
    public static func binary(_ op: BinaryOperator, _ left: Syntax, _ right: Syntax) -> Syntax {
        Syntax(.binary(op, spelling: op.rawValue, operatorColumn: 0, left, right))
    }

    /// `!operand`.
    public static func not(_ operand: Syntax) -> Syntax {
        Syntax(.unary(.not, spelling: "!", operand))
    }

    /// `-operand`.
    public static func negate(_ operand: Syntax) -> Syntax {
        Syntax(.unary(.negate, spelling: "-", operand))
    }

    /// Whether the lexer reads `name` as one name (a key path segment or a function name):
    /// a letter or `_`, then letters, `_` and ASCII digits.
    public static func isName(_ name: String) -> Bool {
        guard let first = name.first, first == "_" || first.isLetter else { return false }
        return name.allSatisfy { $0 == "_" || $0.isLetter || ($0.isASCII && $0.isNumber) }
    }

    /// The same expression, positions aside: same operators as spelt, names, literals and shape.
    public func isSameTree(as other: Syntax) -> Bool {
        switch (kind, other.kind) {
        case (.literal(let a), .literal(let b)):
            return a == b
        case (.path(let rootA, let a), .path(let rootB, let b)):
            return rootA == rootB && a.map(\.name) == b.map(\.name)
        case (.unary(let opA, let spellingA, let a), .unary(let opB, let spellingB, let b)):
            return opA == opB && spellingA == spellingB && a.isSameTree(as: b)
        case (.binary(let opA, let spellingA, _, let leftA, let rightA), .binary(let opB, let spellingB, _, let leftB, let rightB)):
            return opA == opB && spellingA == spellingB && leftA.isSameTree(as: leftB) && rightA.isSameTree(as: rightB)
        case (.call(let nameA, let a), .call(let nameB, let b)):
            return nameA == nameB && a.count == b.count && zip(a, b).allSatisfy { $0.isSameTree(as: $1) }
        default:
            return false
        }
    }
}
