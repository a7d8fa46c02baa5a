import Foundation
import ETLStore
import ETLPipeline
import ETLExpression

/// The second pass (Core Data's createRelationshipsForDestinationInstance): for every
/// association of a mapping's targets, evaluates the mapping's relationship expressions
/// and its policy's relate hook, and writes the links, chunked like the create stage.
///
/// Associations are visited in (destination, source, item) order. A to-one is set by the
/// first association that gives it a value (`… IS NULL` guards every update), so with
/// uniqueBy the lowest source key decides; to-many links are the union over all
/// associations of the destination row.
struct RelateStage {
    let context: StepContext
    let index: MappingID

    func run() throws {
        let plan = context.plan
        let mapping = plan.mappings[index]
        let policy = context.policy(of: mapping)
        guard !mapping.relationships.isEmpty || policy?.relate != nil, !context.isDone(.relate, mapping: index) else { return }
        let started = Date()
        let extractor = try Extractor(layout: plan.sourceLayout, entity: mapping.sourceEntity, itemEntity: mapping.itemEntity,
                                      paths: mapping.relatePaths, database: context.source,
                                      unreadable: mapping.unreadable)
        // The work file is not written during relate, so a second connection reads it freely.
        let workDatabase = WorkDatabase(file: try Database(path: context.workPath, mode: .readOnly))
        let lookups = LookupPool(path: context.workPath,
                                 targets: Dictionary(uniqueKeysWithValues: plan.targetIDs.map { (plan.targets[$0].name, $0) }))
        var writers: [String: LinkWriter] = [:]
        let total = try workDatabase.associationCount(targets: mapping.targets)
        context.event(.started, .relate, mapping: mapping.name, total: total)

        // Resuming: continue after the last association the checkpoint saw linked.
        let resume = context.resumePoint(.relate, mapping: index)
        var done = resume?.done ?? 0
        for target in mapping.targets {
            let entity = plan.targets[target].entity
            // The last association linked; none yet: the scan starts at (−2⁶³, −2⁶³, −2⁶³)
            // inclusive, a triple a store's keys can make like any other. A pushed-down
            // relate's position (a run that decided otherwise) starts over: links are idempotent.
            var last: RelationResolver.Association?
            if case .linked(let linkedTarget, let destination, let source, let item)? = resume?.progress {
                if linkedTarget > target { continue }
                if linkedTarget == target { last = .init(destination: destination, source: source, item: item) }
            }
            let resolver = RelationResolver(mapping: mapping, target: target, entity: entity, declared: target == mapping.ownTarget,
                                            policy: policy, step: plan.name)
            let scans = try [false, true].map { try workDatabase.prepareAssociationScan(target: target, inclusive: $0) }
            let chunkSize = context.chunkSize
            try ChunkPipeline<RelationResolver.Chunk, (last: RelationResolver.Association, count: Int, links: [RelationResolver.Link], rejects: [Reject])>.run(
                workers: context.workers, maxInFlight: context.workers + 2,
                produce: {
                    try context.checkCancelled()
                    let scan = last == nil ? scans[1] : scans[0]
                    let from = last ?? .init(destination: .min, source: .min, item: .min)
                    try scan.bind([.integer(from.destination), .integer(from.source), .integer(from.item), .integer(Int64(chunkSize))])
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
                    let resolved = try lookups.with { try resolver.resolve(chunk, lookup: $0) }
                    return (chunk.associations.last!, chunk.associations.count, resolved.links, resolved.rejects)
                },
                consume: { result in
                    var linked = 0
                    try context.destination.transaction {
                        for link in result.links {
                            let writer = try writers[link.relationship] ?? LinkWriter(relationship: link.relationship, entity: entity, context: context)
                            writers[link.relationship] = writer
                            linked += try writer.write(from: link.destination, to: link.targets)
                        }
                        try context.keep(result.rejects, mapping: index)
                    }
                    context.counters[mapping.ownTarget].related += linked
                    context.counters[mapping.ownTarget].rejected += result.rejects.count
                    try context.checkRejects(result.rejects)
                    done += result.count
                    try context.commit(.init(step: plan.index, stage: .relate, mapping: index,
                                             progress: .linked(target: target, destination: result.last.destination,
                                                               source: result.last.source, item: result.last.item),
                                             done: done, total: total))
                    context.event(.advanced, .relate, mapping: mapping.name, done: done, total: total)
                })
            writers = [:]
        }
        context.counters[mapping.ownTarget].seconds += Date().timeIntervalSince(started)
        context.event(.finished, .relate, mapping: mapping.name, done: done, total: total)
    }
}
