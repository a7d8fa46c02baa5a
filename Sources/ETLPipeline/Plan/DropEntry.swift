import ETLModel
import ETLExpression

/// What a `"drop"` entry declares: `"Entity"` the rows of that entity and of its
/// sub-entities, `"Entity.property"` that property of that entity and of its sub-entities
/// (a relationship with its inverse: one set of links).
enum DropEntry {
    /// Whether `entry` declares `removed` (a name of `StepPlan.removed`), in `model`.
    static func covers(_ entry: String, _ removed: String, model: Model) -> Bool {
        if entry == removed { return true }
        let e = entry.split(separator: ".", maxSplits: 1).map(String.init)
        let r = removed.split(separator: ".", maxSplits: 1).map(String.init)
        guard e.count == r.count else { return false }
        if e.count == 2, e[1] != r[1] {
            // The other side of the relationship: `entry` names its inverse.
            guard let relationship = model.relationship(r[1], of: r[0]), let inverse = model.inverse(of: relationship),
                  inverse.name == e[1] else { return false }
            return model.lineage(of: relationship.destination).contains { $0.name == e[0] }
                || model.descendants(of: relationship.destination).contains(e[0])
        }
        return model.lineage(of: r[0]).contains { $0.name == e[0] }
    }

    /// Whether `entry` names an entity, or a property of an entity, of `model`.
    static func names(_ entry: String, in model: Model) -> Bool {
        let e = entry.split(separator: ".", maxSplits: 1).map(String.init)
        guard model.entity(named: e[0]) != nil else { return false }
        return e.count == 1 || model.attribute(e[1], of: e[0]) != nil || model.relationship(e[1], of: e[0]) != nil
    }

    /// Every name a `"drop"` entry can give in `models`: each entity, and each of its
    /// properties as `"Entity.property"`, for "did you mean" on an entry that names nothing.
    static func possibleNames(in models: [Model]) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for model in models {
            for entity in model.entities {
                let own = [entity.name] + (entity.attributes.map(\.name) + entity.relationships.map(\.name)).map { "\(entity.name).\($0)" }
                for name in own where seen.insert(name).inserted { names.append(name) }
            }
        }
        return names
    }

    /// " (did you mean 'Post.color'?)" for a mistyped entry, or "".
    static func suggestion(for entry: String, in models: [Model]) -> String {
        closestName(to: entry, among: possibleNames(in: models)).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
