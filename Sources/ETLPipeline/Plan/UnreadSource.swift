import ETLModel
import ETLExpression

/// What a step's mappings leave unread of its source, whatever made them (written, inferred,
/// a mapping model, a policy): the entities whose own rows no mapping reads (`"Entity"`),
/// and of the others the properties no mapping reads (`"Entity.property"`). Their data
/// would not arrive, so the engine counts it in the source and refuses the step unless
/// the pipeline (or the mapping model) declares the drop.
///
/// Read are: a mapping's source entity (its own rows) and every property its expressions
/// name; a `forEach`'s item entity; the entity a path follows a relationship to (its
/// sub-entities' rows too) and the properties read there; every property of a mapping
/// with a policy (its code may read any). Both sides of an inverse pair are one set of
/// links: reading one reads the other, and an unread pair is named once. Derived attributes
/// are computed again, not carried.
enum UnreadSource {
    static func names(mappings: [MappingPlan], model: Model) -> [String] {
        var entities = Set<String>()
        var properties = Set<String>()   // "Entity.property"
        func read(_ entity: String, _ property: String, followed: Bool) {
            for e in followed ? model.descendants(of: entity) : [entity] {
                properties.insert("\(e).\(property)")
                if let r = model.relationship(property, of: e), let inverse = model.inverse(of: r) {
                    for d in model.descendants(of: r.destination) { properties.insert("\(d).\(inverse.name)") }
                }
            }
        }
        func walk(_ path: SourcePath, mapping: MappingPlan) {
            var entity = path.root == .source ? mapping.sourceEntity : (mapping.itemEntity ?? mapping.sourceEntity)
            var followed = path.root == .item
            for segment in path.segments {
                read(entity, segment, followed: followed)
                guard let r = model.relationship(segment, of: entity) else { break }
                entity = r.destination
                followed = true
                entities.formUnion(model.descendants(of: entity))
            }
        }
        for m in mappings {
            entities.insert(m.sourceEntity)
            if let item = m.itemEntity { entities.formUnion(model.descendants(of: item)) }
            for path in m.createPaths + m.relatePaths { walk(path, mapping: m) }
            if m.policy != nil {
                for a in model.attributes(of: m.sourceEntity) { read(m.sourceEntity, a.name, followed: false) }
                for r in model.relationships(of: m.sourceEntity) { read(m.sourceEntity, r.name, followed: false) }
            }
        }
        var unread: [String] = []
        for entity in model.entities where !entity.isAbstract {
            guard entities.contains(entity.name) else {
                unread.append(entity.name)
                continue
            }
            for a in model.attributes(of: entity.name) where a.derivation == nil && !properties.contains("\(entity.name).\(a.name)") {
                unread.append("\(entity.name).\(a.name)")
            }
            for r in model.relationships(of: entity.name) where !properties.contains("\(entity.name).\(r.name)") {
                unread.append("\(entity.name).\(r.name)")
                // One set of links: its other side is not named again.
                read(entity.name, r.name, followed: false)
            }
        }
        return unread
    }
}
