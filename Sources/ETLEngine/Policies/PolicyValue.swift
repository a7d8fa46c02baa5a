import Foundation
import ETLPipeline
import ETLExpression

/// A Swift type a policy's fields read and write (`SourceField`, `AttributeField`): the
/// field's type is checked against the attribute's when the pipeline is planned, so per row
/// a value converts without a name or a type to look up.
public protocol PolicyValue: Sendable {
    /// The row's value as this type; nil when it is null.
    init?(policyValue: Value)
    /// The value a row stores for this one.
    var policyValue: Value { get }
    /// Whether an attribute (or to-one) of this expression type holds values of this type.
    static func holds(_ type: ExprType) -> Bool
}

/// Any value, as the dictionary API sees it: fits every attribute.
extension Value: PolicyValue {
    public init?(policyValue: Value) { self = policyValue }
    public var policyValue: Value { self }
    public static func holds(_ type: ExprType) -> Bool { true }
}

extension String: PolicyValue {
    public init?(policyValue: Value) {
        guard case .string(let text) = policyValue else { return nil }
        self = text
    }
    public var policyValue: Value { .string(self) }
    public static func holds(_ type: ExprType) -> Bool { type == .string }
}

/// Integers, and the key of a to-one's row.
extension Int64: PolicyValue {
    public init?(policyValue: Value) {
        switch policyValue {
        case .integer(let number), .row(let number): self = number
        default: return nil
        }
    }
    public var policyValue: Value { .integer(self) }
    public static func holds(_ type: ExprType) -> Bool {
        if case .sourceRow = type { return true }
        return type == .integer
    }
}

extension Double: PolicyValue {
    public init?(policyValue: Value) {
        guard case .double(let number) = policyValue else { return nil }
        self = number
    }
    public var policyValue: Value { .double(self) }
    public static func holds(_ type: ExprType) -> Bool { type == .double }
}

extension Bool: PolicyValue {
    public init?(policyValue: Value) {
        guard case .boolean(let flag) = policyValue else { return nil }
        self = flag
    }
    public var policyValue: Value { .boolean(self) }
    public static func holds(_ type: ExprType) -> Bool { type == .boolean }
}

/// A date attribute's value (stored relative to the layout's epoch; the engine shifts it).
extension Date: PolicyValue {
    public init?(policyValue: Value) {
        guard case .date(let seconds) = policyValue else { return nil }
        self = Date(timeIntervalSince1970: seconds)
    }
    public var policyValue: Value { .date(timeIntervalSince1970) }
    public static func holds(_ type: ExprType) -> Bool { type == .date }
}

/// A binary attribute's bytes.
extension Array: PolicyValue where Element == UInt8 {
    public init?(policyValue: Value) {
        guard case .binary(let bytes) = policyValue else { return nil }
        self = bytes
    }
    public var policyValue: Value { .binary(self) }
    public static func holds(_ type: ExprType) -> Bool { type == .binary }
}
