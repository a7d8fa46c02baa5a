import Foundation
import ETLStore
import ETLPipeline

/// The second pass (Core Data's createRelationshipsForDestinationInstance): for every
/// association of a mapping, evaluates the mapping's relationship expressions and writes
/// the links, chunked like the create stage.
///
/// Associations are visited in (destination, source, item) order. A to-one is set by the
/// first association that gives it a value (`… IS NULL` guards every update), so with
/// uniqueBy the lowest source key decides; to-many links are the union over all
/// associations of the destination row.
struct RelateStage {
    let context: StepContext
    let index: Int

    func run() throws {
        let plan = context.plan
        let mapping = plan.mappings[index]
        guard !mapping.relationships.isEmpty, !context.isDone(.relate, mapping: index) else { return }
        let started = Date()
        let extractor = try Extractor(layout: plan.sourceLayout, entity: mapping.sourceEntity, itemEntity: mapping.itemEntity,
                                      paths: mapping.relatePaths, database: context.source)
        let resolver = RelationResolver(mapping: mapping)
        // The work file is not written during relate, so a second connection reads it freely.
        let work = try Database(path: context.workPath, mode: .readOnly)
        let scan = try work.prepare("""
            SELECT destination, source, item FROM association
            WHERE mapping = \(index) AND (destination, source, item) > (?, ?, ?)
            ORDER BY destination, source, item LIMIT ?
            """)
        let lookups = LookupPool(path: context.workPath,
                                 mappingIndex: Dictionary(uniqueKeysWithValues: plan.mappings.enumerated().map { ($1.name, $0) }))
        let writers = try mapping.relationships.map { try LinkWriter(assignment: $0, entity: mapping.destinationEntity, context: context) }
        let total = Int(try work.scalarInt("SELECT count(*) FROM association WHERE mapping = \(index)"))
        context.event(.started, .relate, mapping: mapping.name, total: total)

        // Resuming: continue after the last association the checkpoint saw linked.
        let resume = context.resumePoint(.relate, mapping: index)
        var last = resume.map { RelationResolver.Association(destination: $0.key[0], source: $0.key[1], item: $0.key[2]) }
            ?? RelationResolver.Association(destination: .min, source: .min, item: .min)
        var done = resume?.done ?? 0
        let chunkSize = context.chunkSize
        try ChunkPipeline<RelationResolver.Chunk, (last: RelationResolver.Association, count: Int, links: [RelationResolver.Link])>.run(
            workers: context.workers, maxInFlight: context.workers + 2,
            produce: {
                try context.checkCancelled()
                try scan.bind([.integer(last.destination), .integer(last.source), .integer(last.item), .integer(Int64(chunkSize))])
                var associations: [RelationResolver.Association] = []
                while try scan.step() {
                    associations.append(.init(destination: scan.int64(0), source: scan.int64(1), item: scan.int64(2)))
                }
                scan.reset()
                guard let end = associations.last else { return nil }
                last = end
                let rows = try extractor.fetch(sourceKeys: Array(Set(associations.map(\.source))),
                                               itemKeys: Array(Set(associations.map(\.item))))
                return .init(associations: associations, sources: rows.sources, items: rows.items, slotSources: extractor.slotSources)
            },
            transform: { chunk in
                (chunk.associations.last!, chunk.associations.count, try lookups.with { try resolver.resolve(chunk, lookup: $0) })
            },
            consume: { result in
                var linked = 0
                try context.destination.transaction {
                    for link in result.links {
                        linked += try writers[link.relationship].write(from: link.destination, to: link.targets)
                    }
                }
                context.counters[index].related += linked
                done += result.count
                try context.commit(.init(step: plan.index, stage: .relate, mapping: index,
                                         key: [result.last.destination, result.last.source, result.last.item], done: done, total: total))
                context.event(.advanced, .relate, mapping: mapping.name, done: done, total: total)
            })
        context.counters[index].seconds += Date().timeIntervalSince(started)
        context.event(.finished, .relate, mapping: mapping.name, done: done, total: total)
    }
}
