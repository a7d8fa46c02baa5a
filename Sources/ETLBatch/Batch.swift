import Foundation
import ETL

/// `etl batch`: every store through its own run of one pipeline, several at a time, each
/// failure recorded and the others going on, resumable after any stop.
///
///     var options = BatchOptions(pipeline: "upgrade.json", stores: try BatchStoreList.find("archive/**/*.sqlite").stores,
///                                output: .directory("out"), manifest: "out/.etl-batch-manifest.jsonl.zst", jobs: 2)
///     let report = try Batch(options: options).run()
public final class Batch: @unchecked Sendable {
    public let options: BatchOptions

    private let lock = NSLock()
    private var queue: [(store: BatchStore, prior: BatchStoreResult?, reasons: [String])] = []
    private var next = 0
    private var running: [String] = []
    private var results: [String: BatchStoreResult] = [:]
    private var finished = 0
    private var finishedBefore = 0
    private var fatal: Error?
    /// The folders results were renamed into without an fsync of the folder
    /// (`RunOptions.installRecordedByCaller`): synced once each at the batch's end.
    private var installedFolders = Set<String>()
    var manifest: BatchManifest!
    /// The pipeline read once per batch, and planned once per kind of store (`PlanCache`).
    var plans = PlanCache()
    /// What makes this batch's results besides each store (`BatchInputs`), and its digest,
    /// recorded with each outcome.
    var inputs: BatchInputs!
    var inputsDigest = ""
    /// With `--out`: the prefix of the names under which each job's run lock and work database wait between
    /// two stores (`RunFileCarrier`), beside the batch's own lock.
    private var lockParking: String?
    private var events: @Sendable (BatchEvent) -> Void = { _ in }

    public init(options: BatchOptions) {
        self.options = options
    }

    /// Runs the batch. Throws only for the batch as a whole (`BatchUsageError` for a
    /// manifest of another batch, `BatchIOError` when the manifest cannot be written);
    /// every store's own failure is in the report.
    public func run(events: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws -> BatchReport {
        let started = Date()
        self.events = events
        (queue, next, running, results, fatal) = ([], 0, [], [:], nil)
        plans = PlanCache()
        let header = BatchManifest.Header(pipeline: BatchStoreList.absolute(options.pipeline, in: FileManager.default.currentDirectoryPath),
                                          output: outputDescription, shard: options.shard.isWhole ? "all" : options.shard.description)
        // One batch per manifest at a time (with --out: in place, batches share it, `BatchStoreLock`).
        let batchLock = try BatchLock.take(options)
        defer { batchLock?.release() }
        lockParking = batchLock.map { $0.path + ".job" }
        if let lockParking { RunFileCarrier.removeStale(prefix: lockParking) }
        inputs = try BatchInputs.of(pipeline: options.pipeline, run: options.run)
        inputsDigest = inputs.digest
        manifest = try BatchManifest(path: options.manifest, header: header, restart: options.restart)
        defer { manifest.stopSyncing() }
        let previous = manifest.contents.latest
        let triage = BatchTriage(options: options, inputs: inputs, recorded: manifest.contents.inputs)
        for store in options.stores {
            switch triage.decide(store, prior: previous[store.path]) {
            case .keep(let prior): results[store.path] = prior
            case .stale(let prior): results[store.path] = prior
            case .run(let reasons): queue.append((store, previous[store.path], reasons))
            }
        }
        if !queue.isEmpty { try manifest.record(inputs) }
        finished = results.count
        finishedBefore = results.count
        emit(.batchStarted, store: nil, result: nil)

        let group = DispatchGroup()
        for job in 0..<min(max(options.jobs, 1), queue.count) {
            group.enter()
            let files = lockParking.map { RunFileCarrier(parking: $0 + "\(job + 1)") }
            let thread = Thread { [self] in
                work(files: files)
                files?.release()
                group.leave()
            }
            // Each thread plans and runs whole migrations: give it a main thread's stack.
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        // The renames of this batch's results, then the outcomes appended since the last
        // durable entry (`BatchManifest.append`). Until then a crash of the machine may lose
        // a rename whose outcome is recorded: the rerun finds the result missing and
        // migrates the store again (`BatchTriage`).
        for folder in installedFolders.sorted() { BatchFiles.syncFolder(of: folder + "/.") }
        if let fatal { throw fatal }
        try manifest.sync()

        var stores: [BatchStoreResult] = []
        for store in options.stores {
            if let result = results[store.path] {
                stores.append(result)
            } else {
                // Never started: the batch was stopped first.
                let prior = previous[store.path]
                let resumable = prior?.status == .interrupted || prior?.status == .started
                var result = BatchStoreResult(store: store, status: resumable ? .interrupted : .pending)
                result.output = prior?.output
                result.fromVersion = prior?.fromVersion
                result.toVersion = prior?.toVersion
                stores.append(result)
            }
        }
        var report = BatchReport(pipeline: header.pipeline, shard: header.shard, output: outputDescription, manifest: options.manifest,
                                 started: started.timeIntervalSince1970, finished: Date().timeIntervalSince1970,
                                 interrupted: (options.cancellation?.isCancelled ?? false)
                                    && stores.contains { $0.status == .interrupted || $0.status == .pending },
                                 stores: stores)
        report.unnamed = options.unnamed.isEmpty ? nil : options.unnamed
        emit(.batchFinished, store: nil, result: nil)
        return report
    }

    private var outputDescription: String {
        switch options.output {
        case .directory(let folder): return "out " + BatchStoreList.absolute(folder, in: FileManager.default.currentDirectoryPath)
        case .inPlace: return "in place"
        }
    }

    private var stopping: Bool {
        fatal != nil || (options.cancellation?.isCancelled ?? false)
    }

    private func emit(_ kind: BatchEvent.Kind, store: String?, result: BatchStoreResult?, message: String? = nil) {
        // Called with the lock held or from the single thread, so events arrive in order.
        events(BatchEvent(kind: kind, time: Date().timeIntervalSince1970, total: options.stores.count, finished: finished,
                          finishedBefore: finishedBefore, running: running, store: store, result: result, message: message))
    }

    /// Runs one store's migration, telling when it resumes an interrupted one; with the
    /// plan `planned` made from `migration`'s own source, without planning again.
    func run(_ migration: Migration, store: BatchStore, planned: (plan: Plan, source: SourceStore)? = nil,
             clock: BatchStoreClock? = nil) throws -> RunSummary {
        let progress = { [self] (event: ProgressEvent) in
            clock?.event(event.stage)
            guard event.kind == .resumed else { return }
            let percent = event.total > 0 ? ", \(Int(Double(event.done) / Double(event.total) * 100)) % done" : ""
            let message = "resuming at step \(event.step)/\(event.stepCount) \(event.stage.rawValue)"
                + (event.mapping.map { " \($0)" } ?? "") + " (\(event.stepName))\(percent)"
            lock.lock()
            emit(.storeResumed, store: store.relativePath, result: nil, message: message)
            lock.unlock()
        }
        if let planned { return try migration.run(planned.plan, source: planned.source, progress: progress) }
        return try migration.run(progress: progress)
    }

    /// `files`: the job's run lock and work database, carried from store to store (`RunFileCarrier`).
    private func work(files: RunFileCarrier?) {
        while true {
            lock.lock()
            guard !stopping, next < queue.count else {
                lock.unlock()
                return
            }
            let item = queue[next]
            next += 1
            running.append(item.store.relativePath)
            emit(.storeStarted, store: item.store.relativePath, result: nil)
            lock.unlock()

            let result: BatchStoreResult
            do {
                result = try process(item.store, prior: item.prior, reasons: item.reasons, files: files)
            } catch {
                lock.lock()
                if fatal == nil { fatal = error }
                running.removeAll { $0 == item.store.relativePath }
                lock.unlock()
                return
            }

            lock.lock()
            results[item.store.path] = result
            if case .directory = options.output, result.status == .done, let output = result.output {
                installedFolders.insert((output as NSString).deletingLastPathComponent)
            }
            running.removeAll { $0 == item.store.relativePath }
            if result.status != .interrupted { finished += 1 }
            emit(.storeFinished, store: item.store.relativePath, result: result)
            lock.unlock()
        }
    }
}

extension Batch {
    /// Reads the pipeline file and, when it can be planned without a store (no model
    /// bundle, no Core Data source), plans it: a bad pipeline is refused (`DocumentError`)
    /// before any store is touched. A bundle pipeline's steps are checked per store, as each
    /// store's version decides them.
    public static func checkPipeline(_ pipeline: String, policies: PolicyRegistry = PolicyRegistry()) throws {
        var migration = Migration(pipeline: pipeline)
        migration.policies = policies
        let spec = try migration.spec()
        if !spec.planningReadsSource {
            _ = try migration.plan()
        }
    }
}
