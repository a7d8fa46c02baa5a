extension StepPlan {
    /// The step's mappings in the order their rows are created: the plan's order, except
    /// that the mappings whose rows are found by their `uniqueBy` key alone come last — no
    /// policy, no `forEach`, the only writer of their table and of their keys.
    ///
    /// Such a mapping's keys are a `GROUP BY` of every source row: inside SQLite, the
    /// costliest statement of its step, worked out on a second connection from the step's
    /// start (`AheadWork`). Created last, its rows find their keys ready, and the run's
    /// connection has created the other mappings' rows meanwhile instead of waiting for them.
    /// Nothing another mapping creates reads its rows or keys (links are set once every row
    /// is made; a row written with its links finds only rows kept under source keys), and
    /// its keys are counted from its own table's next free key: its rows are the same in
    /// either order.
    ///
    /// A checkpoint names the mapping whose rows were being created; the mappings created
    /// before it are those before it in this order, whichever way the step runs
    /// (`createRank`).
    public var createOrder: [MappingID] {
        let writers = writersByTable
        let scopes = uniqueKeyScopes
        let last = mappingIDs.filter { id in
            let mapping = mappings[id]
            return mapping.uniqueBy != nil && mapping.policy == nil && mapping.forEach == nil && mapping.targets.count == 1
                && writers[destinationLayout.table(of: mapping.destinationEntity).name] == 1
                && scopes.targets(sharing: mapping.ownTarget) == [mapping.ownTarget]
        }
        return mappingIDs.filter { !last.contains($0) } + last
    }

    /// Where mapping `id`'s rows come in `createOrder`: 0 for the first created.
    public func createRank(of id: MappingID) -> Int {
        createOrder.firstIndex(of: id) ?? id.index
    }
}
