import ETLPipeline

/// The transform half of the relate stage: for each association of a chunk, evaluates
/// the mapping's relationship expressions into the destination keys to link. Runs on
/// the workers; its only reads are destination() lookups through `LookupPool`.
struct RelationResolver: Sendable {
    let mapping: MappingPlan

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
        var relationship: Int
        var targets: [Int64]
    }

    func resolve(_ chunk: Chunk, lookup: @escaping (String, [Int64]) throws -> [Int64]) throws -> [Link] {
        var links: [Link] = []
        for association in chunk.associations {
            guard let source = chunk.sources[association.source] else {
                throw RowFailure(key: association.source, expression: "", reason: "the source row disappeared during the run")
            }
            let item = association.item == WorkArea.noItem ? nil : chunk.items[association.item]
            let context = EvaluationContext(slots: Extractor.slots(chunk.slotSources, source: source, item: item), lookup: lookup)
            for (r, assignment) in mapping.relationships.enumerated() {
                let targets: [Int64]
                switch try evaluate(assignment.expression, context, key: association.source) {
                case .row(let key): targets = [key]
                case .rows(let keys): targets = keys
                default: targets = []
                }
                if !targets.isEmpty {
                    links.append(Link(destination: association.destination, relationship: r, targets: targets))
                }
            }
        }
        return links
    }
}
