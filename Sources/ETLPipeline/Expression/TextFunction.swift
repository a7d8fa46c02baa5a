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
