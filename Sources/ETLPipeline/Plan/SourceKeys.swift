import ETLStore

extension StepPlan {
    /// The targets whose rows keep the key of the source row they come from, instead of
    /// the next free key.
    ///
    /// A target qualifies when it is its mapping's own (the mapping's destination entity)
    /// and the mapping makes at most one such row per source row: no uniqueBy or forEach.
    /// A policy mapping's own target qualifies too: the row the mapping declares (the
    /// policy's `output`, Core Data's `super`) keeps its source row's key when the policy
    /// leaves it one per source row; rows the policy adds (of any entity, or under a
    /// `uniqueKey`) are new rows (`Transformer.NewRow.keepsSourceKey`). Several such targets may
    /// write one destination table — the entities of an inheritance hierarchy sharing
    /// Core Data's root table — when they read distinct source entities of one source table
    /// (so their source keys never collide) and write distinct destination entities (so each
    /// one's rows are told apart by `Z_ENT`). Other writers of the table (uniqueBy, forEach,
    /// policies' extra rows) make new rows: those get keys above every source key (`firstNewKeys`).
    ///
    /// Keeping keys is what Core Data's own migration does: object IDs the app saved
    /// (`x-coredata://UUID/Car/p14`) stay valid. It also makes the destination's links the
    /// source's links, so a pushed-down step can copy a join table instead of translating
    /// every key. Both engines follow this rule, so they write the same store.
    public var sourceKeyTargets: Set<TargetID> {
        var candidates: [String: [TargetID]] = [:]
        for id in targetIDs {
            let target = targets[id]
            let mapping = mappings[target.mapping]
            if mapping.ownTarget == id, mapping.targets.count == 1 || mapping.policy != nil,
               mapping.uniqueBy == nil, mapping.forEach == nil {
                candidates[destinationLayout.table(of: target.entity).name, default: []].append(id)
            }
        }
        var result = Set<TargetID>()
        for indices in candidates.values {
            let sources = indices.map { mappings[targets[$0].mapping].sourceEntity }
            let destinations = indices.map { targets[$0].entity }
            let sourceTables = Set(sources.map { sourceLayout.table(of: $0).name })
            let discriminated = indices.allSatisfy { destinationLayout.table(of: targets[$0].entity).discriminator != nil }
            if indices.count == 1
                || (Set(sources).count == indices.count && Set(destinations).count == indices.count
                    && sourceTables.count == 1 && discriminated) {
                result.formUnion(indices)
            }
        }
        return result
    }

    /// How many of the step's targets write each destination table.
    public var writersByTable: [String: Int] {
        var writers: [String: Int] = [:]
        for target in targets {
            writers[destinationLayout.table(of: target.entity).name, default: 0] += 1
        }
        return writers
    }

    /// Per destination table that keeps source keys: the first key a new row of it may take,
    /// one above the highest key of the source tables its kept rows come from (filtered-out
    /// rows included). Kept keys are all below it, new keys (uniqueBy, forEach, policies) at
    /// or above it, whatever order the mappings run in. Read from `source`, which the run
    /// never changes: the same on every resume.
    public func firstNewKeys(source: Database) throws -> [String: Int64] {
        var result: [String: Int64] = [:]
        for id in sourceKeyTargets.sorted() {
            let from = sourceLayout.table(of: mappings[targets[id].mapping].sourceEntity)
            let highest = try source.scalarInt("SELECT coalesce(max(\(Database.quote(from.keyColumn))), 0) FROM \(Database.quote(from.name))")
            let table = destinationLayout.table(of: targets[id].entity).name
            result[table] = max(result[table] ?? 1, highest == .max ? highest : highest + 1)
        }
        return result
    }
}
