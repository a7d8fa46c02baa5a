import ETLStore
import ETLModel
import ETLPipeline

/// Undoes what a killed run loaded in the create stage after its last checkpoint: the
/// checkpoint is written after each chunk's commit, so at most the chunk(s) committed in
/// between are removed here — and loaded again, with the same keys, by the resumed run.
struct Rollback {
    let database: Database
    let plan: StepPlan
    /// Next free key per table at the checkpoint: new rows at or above it came later.
    let nextKeys: [String: Int64]
    /// `StepPlan.firstNewKeys`: kept source keys are below it. A kept row came later when
    /// its mapping comes later, or is the checkpoint's and its key is past the checkpoint's.
    let firstNewKeys: [String: Int64]

    /// Returns the number of source rows whose loading is undone.
    func undo(after position: Checkpoint.Position) throws -> Int {
        let q = Database.quote
        let mapping = position.mapping
        let lastKey = position.key.first ?? .min
        let layout = plan.destinationLayout
        let keyColumns = Dictionary(plan.destinationModel.entities.map { (layout.table(of: $0.name).name, layout.table(of: $0.name).keyColumn) },
                                    uniquingKeysWith: { a, _ in a })
        // Targets (association ids) of this mapping and of the ones after it.
        let current = plan.mappings[mapping].targets.map(String.init).joined(separator: ",")
        let later = plan.targets.indices.filter { plan.targets[$0].mapping > mapping }.map(String.init).joined(separator: ",")
        return try database.transaction {
            let after = "(mapping IN (\(current)) AND source > \(lastKey))" + (later.isEmpty ? "" : " OR mapping IN (\(later))")
            let undone = Int(try database.scalarInt("SELECT count(DISTINCT source) FROM work.association WHERE mapping IN (\(current)) AND source > \(lastKey) AND source != \(Int64.max)"))
            try database.execute("DELETE FROM work.association WHERE \(after)")
            try database.execute("DELETE FROM work.reject WHERE mapping > \(mapping) OR (mapping = \(mapping) AND source > \(lastKey))")
            for (table, next) in nextKeys.sorted(by: { $0.key < $1.key }) {
                guard let key = keyColumns[table] else { continue }
                try database.run("DELETE FROM \(q(table)) WHERE \(q(key)) >= ?", [.integer(next)])
            }
            for index in plan.sourceKeyTargets.sorted() where plan.targets[index].mapping >= mapping {
                let table = layout.table(of: plan.targets[index].entity)
                let conditions = ["\(q(table.keyColumn)) < \(firstNewKeys[table.name] ?? .max)"]
                    + (plan.targets[index].mapping == mapping ? ["\(q(table.keyColumn)) > \(lastKey)"] : [])
                    + (table.condition(alias: q(table.name)).map { [$0] } ?? [])
                try database.execute("DELETE FROM \(q(table.name)) WHERE " + conditions.joined(separator: " AND "))
            }
            let scopes = plan.uniqueKeyScopes
            for index in plan.targets.indices where plan.targets[index].mapping >= mapping {
                let table = layout.table(of: plan.targets[index].entity).name
                try database.run("DELETE FROM work.unique_key WHERE mapping = ? AND destination >= ?",
                                 [.integer(Int64(scopes[index])), .integer(nextKeys[table] ?? 1)])
            }
            return undone
        }
    }
}
