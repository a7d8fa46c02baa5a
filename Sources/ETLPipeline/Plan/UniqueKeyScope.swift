/// For each target of a step, the target whose lookup table of unique keys it shares: the
/// first target of the step making rows of the same entity that deduplicates too (a mapping
/// with `uniqueBy`, or the extra entity of a policy, whose rows may carry a `uniqueKey`);
/// itself otherwise.
///
/// So one destination row exists per distinct key and entity across the step, as with
/// Core Data, where a policy's find-or-create looks in the whole migration's context:
/// V2to3MakerPolicy, on the mappings of Car, SportCar and LuxuryCar, makes one Maker
/// per name however many car entities share it. Each target keeps its own associations.
public struct UniqueKeyScopes: Sendable {
    /// By target.
    private let scopes: [TargetID]

    init(_ step: StepPlan) {
        var first: [String: TargetID] = [:]
        scopes = step.targetIDs.map { id in
            let target = step.targets[id]
            let mapping = step.mappings[target.mapping]
            let deduplicates = id == mapping.ownTarget ? mapping.uniqueBy != nil : mapping.policy != nil
            guard deduplicates else { return id }
            if let scope = first[target.entity] { return scope }
            first[target.entity] = id
            return id
        }
    }

    /// The scope of `target`'s unique keys: the target whose id names them in the work database.
    public subscript(target: TargetID) -> TargetID { scopes[target.index] }

    /// The targets whose unique keys are in scope `scope`.
    public func targets(sharing scope: TargetID) -> [TargetID] {
        scopes.indices.map(TargetID.init).filter { scopes[$0.index] == scope }
    }
}

extension StepPlan {
    public var uniqueKeyScopes: UniqueKeyScopes { UniqueKeyScopes(self) }
}
