import ETLModel
import ETLExpression
import Foundation
import ETLPipeline

/// extract → transform → load for one entity mapping: the extractor reads source rows in
/// keyset chunks, workers transform them, the loader writes them in source order, one
/// transaction per chunk.
struct CreateStage {
    let context: StepContext
    let index: MappingID

    func run() throws {
        guard !context.isDone(.create, mapping: index) else { return }
        let started = Date()
        let plan = context.plan
        let mapping = plan.mappings[index]
        let extractor = try Extractor(layout: plan.sourceLayout, entity: mapping.sourceEntity, itemEntity: mapping.itemEntity,
                                      paths: mapping.createPaths, database: context.source,
                                      unreadable: mapping.unreadable)
        let policy = context.policy(of: mapping)
        var transformer = Transformer(mapping: mapping, targets: plan.targets, policy: policy,
                                      epoch: plan.destinationLayout.dateEpoch, step: plan.name)
        transformer.sourceEpoch = plan.sourceLayout.dateEpoch
        transformer.create = try policy?.preparedCreate(step: plan, mapping: index)
        transformer.marksExternalStorage = plan.destinationLayout.kind == .coredata
        let loader = try Loader(context: context, index: index)
        let total = try extractor.count()
        context.event(.started, .create, mapping: mapping.name, total: total)

        // Resuming: continue after the last source key the checkpoint saw loaded.
        var next = SourceKeyRange.first(after: context.lastSourceKeyLoaded(mapping: index))
        var done = context.counters[mapping.ownTarget].read
        let chunkSize = context.chunkSize
        try ChunkPipeline<ExtractedChunk, Transformer.Result>.run(
            workers: context.workers, maxInFlight: context.workers + 2,
            produce: {
                try context.checkCancelled()
                guard let from = next, let chunk = try extractor.scan(from: from, limit: chunkSize, forEach: mapping.forEach) else { return nil }
                // A keyset scan must move forward; a damaged store whose keys do not would loop forever.
                let keys = chunk.rows.keys
                guard keys[0] >= from, zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) else {
                    throw MigrationError.badSource(path: context.sourcePath, reason: "keys of \(mapping.sourceEntity) are out of order from \(from) on: the store is damaged")
                }
                next = SourceKeyRange.first(after: keys.last!)
                return chunk
            },
            transform: { try transformer.transform($0) },
            consume: { result in
                try loader.load(result)
                done += result.read
                try context.commit(.init(step: plan.index, stage: .create, mapping: index, progress: .loaded(lastSourceKey: result.lastKey), done: done, total: total))
                context.event(.advanced, .create, mapping: mapping.name, done: done, total: total)
            })
        if let end = policy?.endOfMapping {
            // Rows of the whole mapping. A resume after this point redoes it: its rows sit
            // above the checkpoint's key watermark and are rolled back first.
            let rows = try end(PolicyMappingContext(mapping: mapping.name, read: context.counters[mapping.ownTarget].read,
                                                    written: context.counters[mapping.ownTarget].written))
            try loader.load(endOfMapping: try rows.map { row in
                try transformer.endOfMappingRow(row)
            })
        }
        context.counters[mapping.ownTarget].seconds += Date().timeIntervalSince(started)
        context.createFinished(index, done: done, total: total)
    }
}
