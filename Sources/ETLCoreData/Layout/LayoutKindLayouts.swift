import ETLStore
import ETLModel

/// The layout a kind names, for a model: here, beside Core Data's layout, since ETLModel
/// (where `LayoutKind` lives) knows no Core Data.
extension LayoutKind {
    /// The layout by its conventions alone: right for a new store. For an existing Core Data
    /// store use `layout(for:store:)`, which reads the names the store really uses.
    public func layout(for model: Model) -> any StoreLayout {
        switch self {
        case .plain: return PlainLayout(model: model)
        case .coredata: return CoreDataLayout(model: model)
        }
    }

    /// The layout of `model` in `store` when given (Core Data: entity numbers and names read
    /// from the store; throws a `CoreDataStoreError` when the store does not hold the model),
    /// else by the conventions, as `layout(for:)`.
    public func layout(for model: Model, store: Database?) throws -> any StoreLayout {
        switch self {
        case .plain: return PlainLayout(model: model)
        case .coredata:
            guard let store else { return CoreDataLayout(model: model) }
            return try CoreDataLayout(model: model, store: store)
        }
    }
}
