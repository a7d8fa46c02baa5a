import ETLStore
import ETLModel
import ETLPipeline

/// What a step removes that holds data: each source entity (its rows) and property (its
/// non-null values, a to-many's links) the step does not carry over, counted in the step's
/// source before a row is read. Nothing is dropped without a count in the summary and in
/// the progress events.
struct RemovedData {
    /// `"Entity"` or `"Entity.property"`, with its count; only those holding data.
    let counts: [(name: String, entity: String, count: Int)]

    init(step: StepPlan, source: Database) throws {
        let layout = step.sourceLayout
        let model = step.sourceModel
        let q = Database.quote
        var counts: [(String, String, Int)] = []
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
            if count > 0 { counts.append((name, entity, count)) }
        }
        self.counts = counts
    }
}
