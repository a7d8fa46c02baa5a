import Foundation
import ETLModel
import ETLExpression
import ETLPipeline
import ETLEngine
import ETLStore
import ETLDocument

/// One migration, as a program embedding the library runs it.
///
///     var migration = Migration(pipeline: "pipelines/books.json")
///     migration.replace = .backup
///     let summary = try migration.run { event in print(event.stage, event.done) }
///
/// Every option of the run lives in `options` (`RunOptions`); `migration.replace`,
/// `migration.chunkSize` and the others read and write it.
@dynamicMemberLookup
public struct Migration: Sendable {
    public var pipeline: String
    /// Overrides of the pipeline's source and destination store paths.
    public var source: String?
    public var destination: String?
    public var options = RunOptions()
    /// Shared by the migrations of a batch: the pipeline read once, a plan per kind of store.
    public var plans: PlanCache?
    /// The pipeline given as a value (`init(pipeline:file:)`), written, read instead of the file.
    private var written: [UInt8]?

    public init(pipeline: String, policies: [String: Policy] = [:], options: RunOptions = RunOptions()) {
        self.pipeline = pipeline
        self.options = options
        if !policies.isEmpty { self.options.policies = PolicyRegistry(policies) }
    }

    /// A migration of a pipeline given as a value instead of a file: read as the file
    /// `file` would be (its errors name `file`, its relative paths are relative to its
    /// folder), which need not exist; nothing is written there.
    public init(pipeline value: PipelineValue, file: String, policies: [String: Policy] = [:], options: RunOptions = RunOptions()) {
        self.init(pipeline: file, policies: policies, options: options)
        written = Array(PipelineWriter.json(value).utf8)
    }

    public subscript<Value>(dynamicMember option: WritableKeyPath<RunOptions, Value>) -> Value {
        get { options[keyPath: option] }
        set { options[keyPath: option] = newValue }
    }

    /// Reads the pipeline and its models and checks every name and expression.
    /// Throws `DocumentError` (naming file, line, column and JSON path) on any problem.
    public func plan() throws -> Plan {
        try plan(source: nil)
    }

    /// Plans from the source store as it is: opened (and checked to be in the pipeline's
    /// layout), its version detected among the pipeline's model versions, so that the plan
    /// holds only the hops the store still needs (none when it is up to date). What
    /// `etl batch` and `etl plan --source` decide from; `run` plans the same way.
    public func planReadingSource() throws -> Plan {
        try planWithSource().plan
    }

    func planWithSource() throws -> (plan: Plan, store: SourceStore) {
        let spec = try spec()
        // The pipeline alone first, so a wrong pipeline is reported before a missing store.
        if !spec.planningReadsSource { _ = try plan(spec, source: nil) }
        let store = try openSource(spec)
        return (try plan(spec, source: store), store)
    }

    /// The source store opened read-only and checked to be in the pipeline's layout: what
    /// `plan(readingSource:)` and `run(_:source:progress:)` then read, so that a caller
    /// (`etl batch`) opens and plans each store once, and can tell the two costs apart.
    public func openSource() throws -> SourceStore {
        try openSource(try spec())
    }

    /// `planReadingSource()` with the store `openSource()` returned.
    public func plan(readingSource store: SourceStore) throws -> Plan {
        try plan(try spec(), source: store)
    }

    /// Plans with the source store open when the plan needs it: a Core Data source's real
    /// names, or a bundle's version detection.
    func plan(source store: SourceStore?) throws -> Plan {
        try plan(try spec(), source: store)
    }

    private func plan(_ spec: PipelineSpec, source store: SourceStore?) throws -> Plan {
        try checkNumbers()
        var store = store
        if store == nil && spec.planningReadsSource {
            store = try openSource(spec)
        }
        // What planning asks the store, in one read transaction (`Database.ReadTransaction`).
        let reading = try store?.database.beginReading()
        defer { reading?.end() }
        var spec = spec
        if let store, spec.source.layoutFromStore {
            spec = try spec.reading(sourceLayout: try SourceSchemaCheck.layout(of: store.database))
        }
        let planner = Planner(policies: options.policies.signatures, functions: options.policies.functions)
        let plan: Plan
        let observe = options.tuning.observe
        if let plans, let store {
            plan = try plans.plan(spec, source: store.database) {
                observe?(.planned)
                return try planner.plan(spec, source: store.database)
            }
        } else {
            observe?(.planned)
            plan = try planner.plan(spec, source: store?.database)
        }
        reading?.end()
        // Planning reads no rows and is bounded (a kept model by `ModelCache.Bounds`), but is
        // not interrupted midway: a stop asked for meanwhile (`etl batch --store-timeout`,
        // a signal) ends the run here, before a row is read.
        if options.cancellation?.isCancelled == true { throw MigrationError.interrupted(checkpoint: nil) }
        try options.policies.prepare(plan)
        return plan
    }

    /// Opens the source read-only and refuses a store in the other layout (`SourceSchemaCheck`)
    /// than the pipeline writes; one whose layout the pipeline leaves out is read as it is.
    func openSource(_ spec: PipelineSpec) throws -> SourceStore {
        let store = try SourceStore(path: spec.source.store, check: false, busyTimeout: options.lockTimeoutMilliseconds)
        try store.database.reading {
            try SourceSchemaCheck.checkLayout(store.database, path: store.path, expected: spec.source.layoutFromStore ? nil : spec.source.layout)
        }
        return store
    }

    /// The pipeline file as this migration runs it: checked (with `confine`), its store paths
    /// replaced by `source` and `destination` when set. (`etl batch` asks it whether planning
    /// needs a store before touching any.)
    public func spec() throws -> PipelineSpec {
        var spec = try plans?.spec(pipeline, load: loadSpec) ?? loadSpec()
        if let source { spec.source.store = absolute(source) }
        if let destination { spec.destination.store = absolute(destination) }
        return spec
    }

    private func loadSpec() throws -> PipelineSpec {
        let spec = try written.map { try PipelineSpec.decode($0, file: pipeline) } ?? PipelineSpec.load(path: pipeline)
        // The pipeline's own paths; paths given on the command line are the operator's choice.
        if options.confine { try spec.checkConfined() }
        return spec
    }

    public func run(progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        try checkNumbers()
        let (plan, store) = try planWithSource()
        return try run(plan, source: store, progress: progress)
    }

    /// Runs `plan`, made by `plan(readingSource: store)` of this migration, without
    /// planning again.
    public func run(_ plan: Plan, source store: SourceStore, progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        try checkNumbers()
        // Like `batch`, a run makes the destination's folder: nothing is written before the
        // pipeline, the source and its version were found good.
        let folder = URL(fileURLWithPath: plan.destinationPath).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MigrationError.badDestination(path: plan.destinationPath, reason: "cannot create the folder \(folder): \(error.localizedDescription)")
        }
        return try Engine(plan: plan, options: options, source: store).run(progress: progress)
    }

    /// Refuses numbers outside `OptionLimits` before any arithmetic on them.
    func checkNumbers() throws {
        if let problem = options.numberProblem() { throw OptionError(description: problem) }
    }

    /// The checkpoint of an interrupted run of this pipeline, or nil when none is in progress.
    public func status() throws -> (checkpoint: Checkpoint?, file: CheckpointFile, files: [(path: String, bytes: Int64)]) {
        let plan = try plan()
        let file = CheckpointFile(destination: plan.destinationPath)
        let checkpoint = try file.read()
        // The run's own hops, which its source's version may have made fewer than the pipeline's.
        let stepCount = checkpoint.map { max(1, $0.identity.models.count - 1) } ?? plan.steps.count
        let files = WorkArea.existingFiles(destination: plan.destinationPath, stepCount: stepCount) + (file.exists ? [file.path] : [])
        return (checkpoint, file, files.map { path in
            (path, ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0)
        })
    }

    /// The destinations in `folders` (not below them) with a checkpoint of a run of this
    /// pipeline file: where `etl status` looks when no destination is given and the
    /// pipeline's own has none (a run given `--destination`).
    public func destinationsWithCheckpoints(in folders: [String]) -> [String] {
        let fm = FileManager.default
        let suffix = ".etl-checkpoint"
        let pipelineFile = absolute(pipeline)
        var found: [String] = []
        for folder in Set(folders.map(absolute)).sorted() {
            for name in ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).sorted() where name.hasSuffix(suffix) {
                let destination = folder + "/" + name.dropLast(suffix.count)
                guard let checkpoint = try? CheckpointFile(destination: destination).read(),
                      absolute(checkpoint.identity.pipelineFile) == pipelineFile else { continue }
                found.append(destination)
            }
        }
        return found
    }

    private func absolute(_ path: String) -> String {
        // A path already absolute and standard (no empty, "." or ".." part, no trailing "/")
        // is what the URL would give back: as it is, without the URL's cost, which a batch
        // paid several times per store.
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        if path.utf8.first == UInt8(ascii: "/"), !parts.isEmpty,
           !parts.contains(where: { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) {
            return path
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
