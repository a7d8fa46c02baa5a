/// The layouts a pipeline can name.
public enum LayoutKind: String, Sendable, CaseIterable {
    case plain

    public func layout(for model: Model) -> any StoreLayout {
        switch self {
        case .plain: return PlainLayout(model: model)
        }
    }
}
