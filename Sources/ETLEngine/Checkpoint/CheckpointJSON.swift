import Foundation
import ETLDocument

/// A checkpoint written field by field (`SortedJSONWriter`): the same bytes as
/// `JSONEncoder.checkpoint` (`.sortedKeys`, dates in seconds since 1970) writes, without its
/// cost (about 570,000 instructions a checkpoint; a small store's run writes one or two).
/// A checkpoint with a lesson learned (`StepLessons`, rare: a step started over) is left to
/// `JSONEncoder`, as is one with a number that is not finite. A test compares the two.
enum CheckpointJSON {
    /// The checkpoint's JSON, or nil when `JSONEncoder` is to write it.
    static func bytes(_ checkpoint: Checkpoint) -> [UInt8]? {
        guard checkpoint.lessons == StepLessons() else { return nil }
        var writer = SortedJSONWriter(escapingSlashes: true)
        writer.object { object in
            object.add("format", checkpoint.format)
            object.add("identity") { write(checkpoint.identity, to: &$0) }
            object.add("position") { write(checkpoint.position, to: &$0) }
            object.add("steps", checkpoint.steps)
            object.add("mappings", checkpoint.mappings)
            object.add("finished") { $0.array(checkpoint.finished) { write($1, to: &$0) } }
            object.add("counters") { $0.array(checkpoint.counters) { write($1, to: &$0) } }
            object.add("nextKeys") { $0.counts(checkpoint.nextKeys) }
            object.add("lessons") { $0.object { _ in } }
            object.add("started", checkpoint.started.timeIntervalSince1970)
            object.add("written", checkpoint.written.timeIntervalSince1970)
        }
        return writer.finite ? writer.bytes : nil
    }

    private static func write(_ identity: RunIdentity, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("toolVersion", identity.toolVersion)
            object.add("pipeline", identity.pipeline)
            object.add("pipelineFile", identity.pipelineFile)
            object.add("source") { write(identity.source, to: &$0) }
            object.add("models", identity.models)
            object.add("destination", identity.destination)
            object.add("pushdown", identity.pushdown)
        }
    }

    private static func write(_ source: SourceIdentity, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("path", source.path)
            object.add("size", source.size)
            object.add("modified", source.modified)
            object.add("header", source.header)
            object.add("walSize", source.walSize)
            object.add("changeCounter", source.changeCounter)
            object.add("schemaCookie", source.schemaCookie)
            object.add("walSalts", source.walSalts)
            object.add("walCheckpoints", source.walCheckpoints)
            object.add("walFrames", source.walFrames)
        }
    }

    /// As `Checkpoint.Position.encode(to:)` writes it: the progress as format 1's `key`.
    private static func write(_ position: Checkpoint.Position, to writer: inout SortedJSONWriter) {
        let key: [Int64]
        switch position.progress {
        case .nothingYet: key = []
        case .loaded(let last): key = [last]
        case .linked(let target, let destination, let source, let item): key = [Int64(target.index), destination, source, item]
        case .statementsDone(let count): key = [Int64(count)]
        }
        writer.object { object in
            object.add("step", position.step)
            object.add("stage", position.stage.rawValue)
            object.add("mapping", position.mapping.index)
            object.add("done", position.done)
            object.add("total", position.total)
            object.add("key") { $0.array(key) { $0.number($1) } }
        }
    }

    private static func write(_ counters: MappingCounters, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("step", counters.step)
            object.add("mapping", counters.mapping)
            object.add("source", counters.source)
            object.add("destination", counters.destination)
            object.add("read", counters.read)
            object.add("filtered", counters.filtered)
            object.add("associated", counters.associated)
            object.add("written", counters.written)
            object.add("rejected", counters.rejected)
            object.add("nullsOnPurpose", counters.nullsOnPurpose)
            object.add("dropped", counters.dropped)
            object.add("related", counters.related)
            object.add("seconds", counters.seconds)
        }
    }
}
