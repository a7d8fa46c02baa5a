import ETLPipeline
import ETLExpression

/// The transform half of the relate stage: for each association of a chunk, evaluates
/// the mapping's relationship expressions (and its policy's relate hook) into the
/// destination keys to link. Runs on the workers; its only reads are destination()
/// lookups through `LookupPool`.
struct RelationResolver: Sendable {
    let mapping: MappingPlan
    /// The target whose associations are resolved, and its entity.
    let target: TargetID
    let entity: String
    /// Declared relationship expressions apply to the mapping's own rows only.
    let declared: Bool
    let policy: Policy?
    let step: String

    struct Association: Sendable {
        var destination: Int64
        var source: Int64
        var item: Int64
    }

    struct Chunk {
        var associations: [Association]
        var sources: [Int64: [Value]]
        var items: [Int64: [Value]]
        let slotSources: [(PathRoot, Int)]
    }

    struct Link {
        var destination: Int64
        /// Relationship name of `entity`.
        var relationship: String
        var targets: [Int64]
    }

    func resolve(_ chunk: Chunk, lookup: @escaping @Sendable (String, [Int64]) throws -> [Int64]) throws -> (links: [Link], rejects: [Reject]) {
        var links: [Link] = []
        var rejects: [Reject] = []
        for association in chunk.associations {
            guard let source = chunk.sources[association.source] else {
                throw RowFailure(key: association.source, expression: "", reason: "the source row disappeared during the run")
            }
            let itemKey = mapping.forEach == nil ? nil : association.item
            let item = itemKey.flatMap { chunk.items[$0] }
            let slots = Extractor.slots(chunk.slotSources, source: source, item: item)
            do {
                var found: [Link] = []
                if declared {
                    let context = EvaluationContext(slots: slots, lookup: lookup)
                    for assignment in mapping.relationships {
                        let targets: [Int64]
                        switch try evaluate(assignment.expression, context, key: association.source) {
                        case .row(let key): targets = [key]
                        case .rows(let keys): targets = keys
                        default: targets = []
                        }
                        if !targets.isEmpty {
                            found.append(Link(destination: association.destination, relationship: assignment.relationship.name, targets: targets))
                        }
                    }
                }
                if let relate = policy?.relate {
                    let row = PolicySourceRow(key: association.source, item: itemKey,
                                              values: slots, names: mapping.policyRelateSlots)
                    let extra: [String: [Int64]]
                    do {
                        extra = try relate(PolicyRelateContext(mapping: mapping.name, entity: entity, destination: association.destination,
                                                               source: row, lookup: lookup))
                    } catch {
                        throw RowFailure(key: association.source, expression: "policy \(mapping.policy!) (relate)", reason: "\(error)")
                    }
                    for (name, targets) in extra.sorted(by: { $0.key < $1.key }) where !targets.isEmpty {
                        found.append(Link(destination: association.destination, relationship: name, targets: targets))
                    }
                }
                links += found
            } catch let failure as RowFailure {
                rejects.append(Reject(step: step, mapping: mapping.name, stage: "relate", entity: mapping.sourceEntity,
                                      key: association.source, expression: failure.expression, error: failure.reason,
                                      values: [:]))
            }
        }
        return (links, rejects)
    }
}
