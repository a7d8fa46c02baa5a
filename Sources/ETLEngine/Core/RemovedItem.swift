/// A source entity (its rows) or property (its non-null values, a to-many's links) that a
/// step leaves unread, counted in the step's source (`RemovedData`): dropped where the pipeline
/// or a mapping model declares it, else a reason to refuse the step (`MigrationError.dataLeftUnread`).
/// `"Entity"` or `"Entity.property"`, with its count and who declared it dropped (nil: no one).
public struct RemovedItem: Sendable, Equatable {
    public let name: String
    public let entity: String
    public let count: Int
    public let declaredBy: String?

    /// "Section: 14 rows", "Section.hexColor: 12 non-null values".
    public var described: String {
        "\(name): \(count) " + (name.contains(".") ? (count == 1 ? "non-null value" : "non-null values") : (count == 1 ? "row" : "rows"))
    }
}
