import Foundation

extension PropertyListValue {
    struct NotAFoundationValue: Error, CustomStringConvertible {
        var description: String
    }

    /// The value as `PropertyListSerialization` gives one (String, Int, Double, Bool, Date,
    /// Data, arrays and string-keyed dictionaries of them), made from what the bounded reader
    /// read: Foundation's own reader is not given untrusted bytes (it crashed bridging a set
    /// of dictionaries, and expands shared references). A UID or a null, which no property
    /// list API writes, is an error.
    func foundationValue() throws -> Any {
        switch self {
        case .string(let s): return s
        case .integer(let i): return Int(i)
        case .real(let d): return d
        case .bool(let b): return b
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .data(let bytes): return Data(bytes)
        case .array(let elements): return try elements.map { try $0.foundationValue() }
        case .dictionary(let entries): return try entries.mapValues { try $0.foundationValue() }
        case .uid(let uid): throw NotAFoundationValue(description: "a keyed archiver's reference (UID \(uid)), which no property list holds")
        case .null: throw NotAFoundationValue(description: "a null, which no property list holds")
        }
    }
}
