/// A Core Data store that is not what a model (or Core Data) expects: names the store
/// file and, where it applies, the entity and what is missing.
public struct CoreDataStoreError: Error, CustomStringConvertible, Sendable {
    public var store: String
    public var message: String

    public init(store: String, _ message: String) {
        self.store = store
        self.message = message
    }

    public var description: String { store.isEmpty ? message : "\(store): \(message)" }
}
