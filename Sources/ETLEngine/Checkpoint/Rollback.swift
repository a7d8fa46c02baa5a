import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Undoes what a killed run loaded in the create stage after its last checkpoint: the
/// checkpoint is written after each chunk's commit, so at most the chunk(s) committed in
/// between are removed here — and loaded again, with the same keys, by the resumed run.
///
/// Rows with handed-out keys came later exactly when their key is at or above the table's
/// watermark (`nextKeys`). Rows that keep their source key (`StepPlan.sourceKeyTargets`)
/// may have any key, negative ones too, so no watermark of keys tells them apart: their
/// table has a single writer, and they came later exactly when their mapping comes later,
/// or is the current one and their key is past the checkpoint's last source key.
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
        // The last source key loaded; none: the mapping had loaded nothing.
        let lastKey: Int64?
        if case .loaded(let last) = position.progress { lastKey = last } else { lastKey = nil }
        let layout = plan.destinationLayout
        let keyColumns = Dictionary(plan.destinationModel.entities.map { (layout.table(of: $0.name).name, layout.table(of: $0.name).keyColumn) },
                                    uniquingKeysWith: { a, _ in a })
        // Targets (association ids) of this mapping and of the ones after it; rows an
        // end-of-mapping hook made come after every chunk of their mapping.
        // (Later in the order rows are created, `StepPlan.createOrder`.)
        let rank = plan.createRank(of: mapping)
        let laterMappings = plan.mappingIDs.filter { plan.createRank(of: $0) > rank }
        let currentTargets = plan.mappings[mapping].targets
        let laterTargets = plan.targetIDs.filter { laterMappings.contains(plan.targets[$0].mapping) }
        // The highest source key a table may keep (`StepPlan.firstNewKeys` is one above it,
        // saturated at 2⁶³−1, where no new key can be handed out at all).
        let keptMax = firstNewKeys.mapValues { $0 == .max ? Int64.max : $0 - 1 }
        let work = WorkDatabase(attachedTo: database)
        return try database.transaction {
            let undone = try work.undo(mapping: mapping, current: currentTargets, later: laterTargets, laterMappings: laterMappings, after: lastKey)
            // New keys handed out after the checkpoint: at or above its next free key, and
            // above every kept key (which may be negative, or 2⁶³−1).
            for (table, next) in nextKeys.sorted(by: { $0.key < $1.key }) {
                guard let key = keyColumns[table] else { continue }
                var from = next
                if let kept = keptMax[table] {
                    if kept == .max { continue }
                    from = max(next, kept + 1)
                }
                try database.run("DELETE FROM \(q(table)) WHERE \(q(key)) >= ?", [.integer(from)])
            }
            // Kept keys loaded after the checkpoint: past its source key in its mapping, all
            // of a later mapping's (only that entity's rows, in a table a hierarchy shares).
            for target in plan.sourceKeyTargets.sorted() where plan.createRank(of: plan.targets[target].mapping) >= rank {
                let table = layout.table(of: plan.targets[target].entity)
                var conditions = ["\(q(table.keyColumn)) <= \(keptMax[table.name] ?? .max)"]
                if plan.targets[target].mapping == mapping, let lastKey { conditions.append("\(q(table.keyColumn)) > \(lastKey)") }
                conditions += table.condition(alias: q(table.name)).map { [$0] } ?? []
                try database.execute("DELETE FROM \(q(table.name)) WHERE " + conditions.joined(separator: " AND "))
            }
            let scopes = plan.uniqueKeyScopes
            for target in plan.targetIDs where plan.createRank(of: plan.targets[target].mapping) >= rank {
                let table = layout.table(of: plan.targets[target].entity).name
                try work.undoUniqueKeys(scope: scopes[target], from: nextKeys[table] ?? 1)
            }
            return undone
        }
    }
}
