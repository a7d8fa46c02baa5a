/// An `NSExpression` read from a keyed archive: the forms Xcode writes into mapping models.
///
/// Xcode archives a property mapping's value expression (and an entity mapping's source
/// expression) with `NSKeyedArchiver`. The classes and fields it uses:
///
/// | class | `NSExpressionType` | fields |
/// |---|---|---|
/// | NSConstantValueExpression | 0 | `NSConstantValue` |
/// | NSSelfExpression | 1 | — |
/// | NSVariableExpression | 2 | `NSVariable` |
/// | NSKeyPathExpression, NSFunctionExpression | 3, 4 | `NSOperand`, `NSSelectorName`, `NSArguments` |
/// | NSKeyPathSpecifierExpression | 10 | `NSKeyPath` |
/// | NSFetchRequestExpression | 50 | `NSFRExpression` (the request), `NSMOCExpression` (the context) |
///
/// `$source.owner` is a function expression: `valueForKeyPath:` on the variable `source`
/// with the key path specifier `owner`. Anything else is kept as `.unsupported`, so that
/// the importer can name it in its refusal.
public indirect enum ArchivedExpression: Sendable, Equatable, CustomStringConvertible {
    case constant(ArchivedValue)
    case evaluatedObject
    case variable(String)
    case keyPath(String)
    case function(operand: ArchivedExpression?, selector: String, arguments: [ArchivedExpression])
    case fetch(request: ArchivedExpression)
    case unsupported(className: String)

    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "not an archived NSExpression: \(reason)" }
    }

    /// Decodes the root object of a keyed archive (the bytes of `valueexpressiondata`).
    public static func decode(archive bytes: [UInt8]) throws -> ArchivedExpression {
        do {
            return try decode(try KeyedArchive.root(of: bytes))
        } catch let error as KeyedArchive.Malformed {
            throw Malformed(reason: error.description)
        }
    }

    public static func decode(_ value: ArchivedValue) throws -> ArchivedExpression {
        guard case .object(let className, let fields) = value else {
            throw Malformed(reason: "the root is not an object")
        }
        switch className {
        case "NSConstantValueExpression":
            return .constant(fields["NSConstantValue"] ?? .null)
        case "NSSelfExpression":
            return .evaluatedObject
        case "NSVariableExpression":
            guard let name = fields["NSVariable"]?.string else { throw Malformed(reason: "\(className) without NSVariable") }
            return .variable(name)
        case "NSKeyPathSpecifierExpression":
            guard let path = fields["NSKeyPath"]?.string else { throw Malformed(reason: "\(className) without NSKeyPath") }
            return .keyPath(path)
        case "NSFunctionExpression", "NSKeyPathExpression":
            guard let selector = fields["NSSelectorName"]?.string else { throw Malformed(reason: "\(className) without NSSelectorName") }
            let operand = try fields["NSOperand"].flatMap { $0 == .null ? nil : try decode($0) }
            var arguments: [ArchivedExpression] = []
            if case .array(let elements)? = fields["NSArguments"] {
                arguments = try elements.map(decode)
            }
            return .function(operand: operand, selector: selector, arguments: arguments)
        case "NSFetchRequestExpression":
            // The request is `NSFRExpression` (the context, `$manager.sourceContext`, is
            // `NSMOCExpression`); another expression field is taken for a request otherwise.
            let request = fields["NSFRExpression"] ?? fields.sorted { $0.key < $1.key }.first {
                guard $0.key != "NSMOCExpression", case .object(let name, _) = $0.value else { return false }
                return name.hasSuffix("Expression")
            }?.value
            guard let request else { throw Malformed(reason: "\(className) without a request expression") }
            return .fetch(request: try decode(request))
        default:
            return .unsupported(className: className)
        }
    }

    /// The key path when this is `$source.a.b` (or `$source` itself: ""), else nil.
    /// `SELF` is the source row too: Core Data evaluates a mapping's expressions with the
    /// source instance as the evaluated object, so `SELF.importDate` is `$source.importDate`.
    public var sourceKeyPath: String? {
        switch self {
        case .variable("source"), .evaluatedObject: return ""
        case .keyPath(let path) where path.hasPrefix("SELF.") && path.count > 5: return String(path.dropFirst(5))
        case .function(let operand?, let selector, let arguments)
            where selector == "valueForKeyPath:" || selector == "valueForKey:":
            guard let base = operand.sourceKeyPath, arguments.count == 1 else { return nil }
            let path: String
            switch arguments[0] {
            case .keyPath(let p): path = p
            case .constant(.string(let p)): path = p
            default: return nil
            }
            return base.isEmpty ? path : "\(base).\(path)"
        default: return nil
        }
    }

    /// The selectors of `FUNCTION($entityPolicy, "selector:", …)` calls in the expression, outermost first.
    public var entityPolicySelectors: [String] {
        guard case .function(let operand, let selector, let arguments) = self else {
            if case .fetch(let request) = self { return request.entityPolicySelectors }
            return []
        }
        let own = operand == .variable("entityPolicy") ? [selector] : []
        return own + (operand?.entityPolicySelectors ?? []) + arguments.flatMap(\.entityPolicySelectors)
    }

    public var callsEntityPolicy: Bool { !entityPolicySelectors.isEmpty }

    /// The expression in `NSExpression`'s format syntax, as Xcode's editor shows it.
    public var description: String {
        switch self {
        case .constant(let value): return Self.format(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$\(name)"
        case .keyPath(let path): return path
        case .function(let operand, let selector, let arguments):
            if (selector == "valueForKeyPath:" || selector == "valueForKey:"), let operand, arguments.count == 1 {
                return "\(operand).\(arguments[0])"
            }
            return "FUNCTION(" + ([operand.map(\.description) ?? "nil", "\"\(selector)\""] + arguments.map(\.description)).joined(separator: ", ") + ")"
        case .fetch(let request): return "FETCH(\(request), $manager.sourceContext, NO)"
        case .unsupported(let className): return "<\(className)>"
        }
    }

    static func format(_ value: ArchivedValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .string(let s): return "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .data(let d): return "<\(d.count) bytes>"
        case .array(let a): return "{" + a.map(format).joined(separator: ", ") + "}"
        case .dictionary: return "<dictionary>"
        case .object(let className, _): return "<\(className)>"
        }
    }
}
