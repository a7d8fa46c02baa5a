import Foundation
import ETLModel
import ETLPipeline
import ETLEngine

/// One migration, as a program embedding the library runs it.
///
///     var migration = Migration(pipeline: "pipelines/books.json")
///     migration.replace = .backup
///     let summary = try migration.run { event in print(event.stage, event.done) }
public struct Migration: Sendable {
    public var pipeline: String
    /// Overrides of the pipeline's source and destination store paths.
    public var source: String?
    public var destination: String?
    /// Overrides of the pipeline's options.
    public var chunkSize: Int?
    public var workers: Int?
    public var replace: ReplacePolicy = .refuse
    /// Discard an earlier run's checkpoint and files and start over.
    public var restart = false
    /// Write checkpoints after every chunk (off only to measure their cost).
    public var checkpoints = true
    /// Cancel it to stop after the chunk being loaded, with a checkpoint.
    public var cancellation: Cancellation?
    /// The policies the pipeline may name.
    public var policies = PolicyRegistry()
    /// Override of the pipeline's options.maxRejects.
    public var maxRejects: Int?
    /// Run SQLite's quick check over the source first (one read of the file).
    public var checkSource = true
    /// Run declarative steps inside SQLite where they translate exactly (`--no-pushdown`: never).
    public var pushdown = true
    /// Refuse pipeline paths that lead outside the pipeline's folder (`--confine`).
    public var confine = false
    /// How long to wait for a source locked by another program's write, in seconds.
    public var lockTimeout: Double = 5

    public init(pipeline: String, policies: [String: Policy] = [:]) {
        self.pipeline = pipeline
        self.policies = PolicyRegistry(policies)
    }

    /// Reads the pipeline and its models and checks every name and expression.
    /// Throws `DocumentError` (naming file, line, column and JSON path) on any problem.
    public func plan() throws -> Plan {
        try plan(source: nil)
    }

    /// Plans with the source store open when the plan needs it: a Core Data source's real
    /// names, or a bundle's version detection.
    func plan(source store: SourceStore?) throws -> Plan {
        try checkNumbers()
        let spec = try spec()
        var store = store
        if store == nil && (spec.models != nil || spec.source.layout == "coredata") {
            store = try SourceStore(path: spec.source.store, check: false, busyTimeout: Int32(lockTimeout * 1000))
        }
        return try Planner(policies: policies.signatures, functions: policies.functions).plan(spec, source: store?.database)
    }

    func spec() throws -> PipelineSpec {
        var spec = try PipelineSpec.load(path: pipeline)
        // The pipeline's own paths; paths given on the command line are the operator's choice.
        if confine { try spec.checkConfined() }
        if let source { spec.source.store = absolute(source) }
        if let destination { spec.destination.store = absolute(destination) }
        return spec
    }

    public func run(progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        try checkNumbers()
        let spec = try spec()
        // Opened first only when planning needs it, so a wrong pipeline is reported before a missing store.
        let store = spec.models != nil || spec.source.layout == "coredata" ? try SourceStore(path: spec.source.store, check: false, busyTimeout: Int32(lockTimeout * 1000)) : nil
        let plan = try plan(source: store)
        var options = RunOptions(chunkSize: chunkSize ?? plan.spec.options.chunkSize,
                                 workers: workers ?? plan.spec.options.workers, replace: replace)
        options.restart = restart
        options.checkpoints = checkpoints
        options.cancellation = cancellation
        options.checkSource = checkSource
        options.pushdown = pushdown
        options.lockTimeout = Int32(lockTimeout * 1000)
        options.policies = policies
        options.maxRejects = maxRejects ?? plan.spec.options.maxRejects
        return try Engine(plan: plan, options: options, source: store).run(progress: progress)
    }

    /// Refuses numbers outside `OptionLimits` before any arithmetic on them.
    func checkNumbers() throws {
        let problems = [chunkSize.flatMap { OptionLimits.problem("chunkSize", $0, in: OptionLimits.chunkSize) },
                        workers.flatMap { OptionLimits.problem("workers", $0, in: OptionLimits.workers) },
                        OptionLimits.problem("lockTimeout", lockTimeout, in: OptionLimits.lockTimeout, unit: "seconds")]
        if let problem = problems.compactMap({ $0 }).first { throw OptionError(description: problem) }
    }

    /// The checkpoint of an interrupted run of this pipeline, or nil when none is in progress.
    public func status() throws -> (checkpoint: Checkpoint?, file: CheckpointFile, files: [(path: String, bytes: Int64)]) {
        let plan = try plan()
        let file = CheckpointFile(destination: plan.destinationPath)
        let checkpoint = try file.read()
        let files = WorkArea.existingFiles(destination: plan.destinationPath, stepCount: plan.steps.count) + (file.exists ? [file.path] : [])
        return (checkpoint, file, files.map { path in
            (path, ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0)
        })
    }

    private func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
