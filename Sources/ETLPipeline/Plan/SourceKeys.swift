extension StepPlan {
    /// The targets whose rows keep the key of the source row they come from, instead of
    /// the next free key.
    ///
    /// A target qualifies when it is a mapping's only target, the mapping makes at most one
    /// row per source row (no uniqueBy, forEach or policy) and no other target of the step
    /// writes to its table: then the source keys are unique in that table. Keeping them
    /// makes the destination's links the source's links, so a pushed-down step can copy a
    /// join table instead of translating every key (and a row keeps its identity from
    /// version to version). Both engines follow this rule, so they write the same store.
    public var sourceKeyTargets: Set<Int> {
        let writers = writersByTable
        var result = Set<Int>()
        for (index, target) in targets.enumerated() {
            let mapping = mappings[target.mapping]
            if mapping.targets == [index], mapping.uniqueBy == nil, mapping.forEach == nil, mapping.policy == nil,
               writers[destinationLayout.table(of: target.entity).name] == 1 {
                result.insert(index)
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
}
