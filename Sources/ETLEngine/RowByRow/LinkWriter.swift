import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Writes the links of one relationship, wherever the layout stores them.
struct LinkWriter {
    let statement: Statement

    init(relationship name: String, entity: String, context: StepContext) throws {
        let layout = context.plan.destinationLayout
        let q = Database.quote
        guard let r = context.plan.destinationModel.relationship(name, of: entity) else {
            throw RowFailure(key: 0, expression: "policy (relate)", reason: "'\(name)' is not a relationship of \(entity)")
        }
        let destination = context.destination
        switch layout.storage(ofRelationship: r.name, entity: entity) {
        case .foreignKey(let table, let column):
            // This row's own column: set it to the target unless already set.
            let key = layout.table(of: entity).keyColumn
            statement = try destination.prepare("UPDATE \(q(table)) SET \(q(column)) = ?2 WHERE \(q(key)) = ?1 AND \(q(column)) IS NULL")
        case .inverseForeignKey(let table, let column):
            // The target's column points back at this row.
            let key = layout.table(of: r.destination).keyColumn
            statement = try destination.prepare("UPDATE \(q(table)) SET \(q(column)) = ?1 WHERE \(q(key)) = ?2 AND \(q(column)) IS NULL")
        case .joinTable(let table, let own, let other):
            statement = try destination.prepare("INSERT OR IGNORE INTO \(q(table)) (\(q(own)), \(q(other))) VALUES (?1, ?2)")
        }
    }

    /// Links `row` to each target; returns the number of links set. Writing a link that
    /// exists changes nothing, so a chunk done twice (after a resume) leaves the same store.
    func write(from row: Int64, to targets: [Int64]) throws -> Int {
        for target in targets {
            try statement.run([.integer(row), .integer(target)])
        }
        return targets.count
    }
}
