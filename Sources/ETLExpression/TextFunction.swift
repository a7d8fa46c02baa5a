/// The text functions without an SQLite twin, by name: the engine registers them in
/// SQLite (`etl_text_…`) so that a step pushed down computes exactly what the evaluator does.
public enum TextFunction: String, Sendable, Hashable, CaseIterable {
    case trim, normalize, casefold, diacriticfold

    public func apply(_ text: String) -> String {
        switch self {
        case .trim: return TextOperations.trim(text)
        case .normalize: return TextOperations.normalize(text)
        case .casefold: return TextOperations.casefold(text)
        case .diacriticfold: return TextOperations.diacriticfold(text)
        }
    }
}

extension TextFunction {
    /// `utf16length()`: the number of UTF-16 code units, as NSString's `length` counts them
    /// (`😀` is 2; `length()` counts it 1, as SQLite does). The evaluator and the SQL
    /// function a step pushed down calls (`etl_text_utf16length`) both count with this.
    public static func utf16Length(_ text: String) -> Int64 {
        Int64(text.utf16.count)
    }
}
