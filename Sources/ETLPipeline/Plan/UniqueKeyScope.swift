extension StepPlan {
    /// For each target, the target whose lookup table of unique keys it shares: the first
    /// target of the step making rows of the same entity that deduplicates too (a mapping
    /// with `uniqueBy`, or the extra entity of a policy, whose rows may carry a
    /// `uniqueKey`); itself otherwise.
    ///
    /// So one destination row exists per distinct key and entity across the step, as with
    /// Core Data, where a policy's find-or-create looks in the whole migration's context:
    /// V2to3MakerPolicy, on the mappings of Car, SportCar and LuxuryCar, makes one Maker
    /// per name however many car entities share it. Each target keeps its own associations.
    public var uniqueKeyScopes: [Int] {
        var first: [String: Int] = [:]
        return targets.indices.map { index in
            let target = targets[index]
            let mapping = mappings[target.mapping]
            let deduplicates = index >= mappings.count ? mapping.policy != nil : mapping.uniqueBy != nil
            guard deduplicates else { return index }
            if let scope = first[target.entity] { return scope }
            first[target.entity] = index
            return index
        }
    }
}
