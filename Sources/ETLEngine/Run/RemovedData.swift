import ETLStore
import ETLModel
import ETLPipeline

/// What a step removes that holds data: each source entity (its rows) and property (its
/// non-null values, a to-many's links) the step's mappings leave unread (`StepPlan.removed`),
/// counted in the step's source before a row is read. What the pipeline declares is
/// dropped and counted in the summary and the progress events; the rest refuses the step.
public struct RemovedData: Sendable {
    /// `"Entity"` or `"Entity.property"`, with its count and who declared it dropped (nil: no one).
    public struct Item: Sendable, Equatable {
        public let name: String
        public let entity: String
        public let count: Int
        public let declaredBy: String?

        /// "Section: 14 rows", "Section.hexColor: 12 non-null values".
        public var described: String {
            "\(name): \(count) " + (name.contains(".") ? (count == 1 ? "non-null value" : "non-null values") : (count == 1 ? "row" : "rows"))
        }
    }

    /// Only those holding data.
    public let items: [Item]
    public var undeclared: [Item] { items.filter { $0.declaredBy == nil } }

    init(step: StepPlan, source: Database) throws {
        let layout = step.sourceLayout
        let model = step.sourceModel
        let q = Database.quote
        var items: [Item] = []
        for name in step.removed {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let entity = parts[0]
            guard model.entity(named: entity) != nil else { continue }
            let table = layout.table(of: entity)
            let rows = "\(q(table.name)) t" + (table.condition(alias: "t").map { " WHERE \($0)" } ?? "")
            let sql: String
            if parts.count == 1 {
                sql = "SELECT count(*) FROM \(rows)"
            } else if model.attribute(parts[1], of: entity) != nil {
                sql = "SELECT count(t.\(q(layout.column(ofAttribute: parts[1], entity: entity)))) FROM \(rows)"
            } else if model.relationship(parts[1], of: entity) != nil {
                switch layout.storage(ofRelationship: parts[1], entity: entity) {
                case .foreignKey(_, let column):
                    sql = "SELECT count(t.\(q(column))) FROM \(rows)"
                case .inverseForeignKey(let other, let column):
                    sql = "SELECT count(\(q(column))) FROM \(q(other)) WHERE \(q(column)) IN (SELECT t.\(q(table.keyColumn)) FROM \(rows))"
                case .joinTable(let join, let own, _):
                    sql = "SELECT count(*) FROM \(q(join)) WHERE \(q(own)) IN (SELECT t.\(q(table.keyColumn)) FROM \(rows))"
                }
            } else {
                continue
            }
            let count = Int(try source.scalarInt(sql))
            if count > 0 { items.append(Item(name: name, entity: entity, count: count, declaredBy: step.declaredDrops[name])) }
        }
        self.items = items
    }
}
