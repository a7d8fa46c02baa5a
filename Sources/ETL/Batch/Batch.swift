import Foundation
import ETLEngine

/// What a batch is asked to do.
@dynamicMemberLookup
public struct BatchOptions: Sendable {
    public enum Output: Sendable, Equatable {
        /// Results go to `DIR/RELATIVE_PATH`; the stores are only read.
        case directory(String)
        /// Each store is replaced by its result once that result passed validation; the
        /// original is kept as `STORE.bak`, or moved to `backupDirectory/RELATIVE_PATH`.
        case inPlace(backupDirectory: String?)
    }

    /// The pipeline file every store goes through (its source and destination paths are
    /// replaced per store).
    public var pipeline: String
    /// The stores of this batch (of this shard).
    public var stores: [BatchStore]
    public var output: Output
    /// The manifest file (see `BatchManifest`).
    public var manifest: String
    /// Stores migrated at the same time.
    public var jobs: Int
    /// The options of each store's run (`RunOptions`; `options.workers` and the others
    /// read and write it). One worker by default, so memory stays bounded by `jobs` runs
    /// of one worker each (see the README's memory figures). Its `replace`, `restart` and
    /// `cancellation` are the batch's to set per store.
    public var run = RunOptions(workers: 1)
    /// Forget the manifest and every store's checkpoint, and start over.
    public var restart = false
    /// Migrate the stores the manifest records as failed again.
    public var retryFailed = false
    /// Cancel it to stop: no store is started after that, and running ones stop after
    /// their chunk being loaded (each run is given it), recorded as interrupted.
    public var cancellation: Cancellation?
    /// The watchdog: a store's run that takes longer is stopped after its chunk being
    /// loaded and recorded as failed (its work kept: a rerun with a larger limit resumes it).
    public var storeTimeout: TimeInterval?
    /// Written in the manifest's header and the report.
    public var shard: BatchShard = .all
    public init(pipeline: String, stores: [BatchStore], output: Output, manifest: String, jobs: Int) {
        self.pipeline = pipeline
        self.stores = stores
        self.output = output
        self.manifest = manifest
        self.jobs = jobs
    }

    public subscript<Value>(dynamicMember option: WritableKeyPath<RunOptions, Value>) -> Value {
        get { run[keyPath: option] }
        set { run[keyPath: option] = newValue }
    }
}

/// What a batch tells while it runs: enough for a progress display or a log.
/// Delivered from the threads running stores, one at a time.
public struct BatchEvent: Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case batchStarted = "batch-started"
        case storeStarted = "store-started"
        /// A store's run continues an interrupted one (`message` says where).
        case storeResumed = "store-resumed"
        case storeFinished = "store-finished"
        case batchFinished = "batch-finished"
    }
    public var kind: Kind
    /// Seconds since 1970.
    public var time: Double
    /// Stores in this batch.
    public var total: Int
    /// Stores with an outcome (done, skipped, failed), those of earlier runs included.
    public var finished: Int
    /// Of `finished`: those recorded by an earlier run of the same batch.
    public var finishedBefore: Int
    /// Stores being migrated now (relative paths).
    public var running: [String]
    /// The store this event is about (relative path).
    public var store: String?
    /// With `storeFinished`.
    public var result: BatchStoreResult?
    /// With `storeResumed`: where the run continues.
    public var message: String?
}

/// `etl batch`: every store through its own run of one pipeline, several at a time, each
/// failure recorded and the others going on, resumable after any stop.
///
///     var options = BatchOptions(pipeline: "upgrade.json", stores: try BatchStoreList.find("archive/**/*.sqlite").stores,
///                                output: .directory("out"), manifest: "out/.etl-batch-manifest.jsonl.zst", jobs: 2)
///     let report = try Batch(options: options).run()
public final class Batch: @unchecked Sendable {
    public let options: BatchOptions

    private let lock = NSLock()
    private var queue: [(store: BatchStore, prior: BatchStoreResult?)] = []
    private var next = 0
    private var running: [String] = []
    private var results: [String: BatchStoreResult] = [:]
    private var finished = 0
    private var finishedBefore = 0
    private var fatal: Error?
    private var manifest: BatchManifest!
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
        let header = BatchManifest.Header(pipeline: BatchStoreList.absolute(options.pipeline, in: FileManager.default.currentDirectoryPath),
                                          output: outputDescription, shard: options.shard.isWhole ? "all" : options.shard.description)
        manifest = try BatchManifest(path: options.manifest, header: header, restart: options.restart)
        let previous = manifest.contents.latest
        for store in options.stores {
            let prior = previous[store.path]
            switch prior?.status {
            case .done?, .skipped?:
                results[store.path] = prior
            case .failed? where !options.retryFailed:
                results[store.path] = prior
            default:
                queue.append((store, prior))
            }
        }
        finished = results.count
        finishedBefore = results.count
        emit(.batchStarted, store: nil, result: nil)

        let group = DispatchGroup()
        for _ in 0..<min(max(options.jobs, 1), queue.count) {
            group.enter()
            let thread = Thread { [self] in
                work()
                group.leave()
            }
            // Each thread plans and runs whole migrations: give it a main thread's stack.
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        if let fatal { throw fatal }

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
        let report = BatchReport(pipeline: header.pipeline, shard: header.shard, output: outputDescription, manifest: options.manifest,
                                 started: started.timeIntervalSince1970, finished: Date().timeIntervalSince1970,
                                 interrupted: (options.cancellation?.isCancelled ?? false)
                                    && stores.contains { $0.status == .interrupted || $0.status == .pending },
                                 stores: stores)
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

    /// Runs one store's migration, telling when it resumes an interrupted one.
    private func run(_ migration: Migration, store: BatchStore, clock: BatchStoreClock? = nil) throws -> RunSummary {
        try migration.run { [self] event in
            clock?.event(event.stage)
            guard event.kind == .resumed else { return }
            let percent = event.total > 0 ? ", \(Int(Double(event.done) / Double(event.total) * 100)) % done" : ""
            let message = "resuming at step \(event.step)/\(event.stepCount) \(event.stage.rawValue)"
                + (event.mapping.map { " \($0)" } ?? "") + " (\(event.stepName))\(percent)"
            lock.lock()
            emit(.storeResumed, store: store.relativePath, result: nil, message: message)
            lock.unlock()
        }
    }

    private func work() {
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
                result = try process(item.store, prior: item.prior)
            } catch {
                lock.lock()
                if fatal == nil { fatal = error }
                running.removeAll { $0 == item.store.relativePath }
                lock.unlock()
                return
            }

            lock.lock()
            results[item.store.path] = result
            running.removeAll { $0 == item.store.relativePath }
            if result.status != .interrupted { finished += 1 }
            emit(.storeFinished, store: item.store.relativePath, result: result)
            lock.unlock()
        }
    }

    // MARK: One store

    /// Migrates one store and records its outcome in the manifest. Throws only when the
    /// manifest cannot be written.
    private func process(_ store: BatchStore, prior: BatchStoreResult?) throws -> BatchStoreResult {
        let started = Date()
        var result = BatchStoreResult(store: store, status: .failed)
        // In place, one batch at a time per store (`BatchStoreLock`).
        var storeLock: RunLock?
        if case .inPlace = options.output {
            do {
                storeLock = try BatchStoreLock.take(store)
                if storeLock == nil { return BatchStoreLock.taken(store) }
            } catch {
                result.error = String(describing: error)
                try manifest.append(result)
                return result
            }
        }
        defer { storeLock?.release() }
        // Each store's run stops with the batch, or when its watchdog fires.
        let cancellation = Cancellation(parent: options.cancellation)
        let timedOut = Cancellation()
        let watchdog = options.storeTimeout.map { seconds -> DispatchWorkItem in
            let item = DispatchWorkItem { timedOut.cancel(); cancellation.cancel() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        defer { watchdog?.cancel() }
        do {
            switch options.output {
            case .directory(let folder):
                try migrate(store, into: folder, prior: prior, result: &result, cancellation: cancellation)
            case .inPlace(let backupDirectory):
                try migrateInPlace(store, backupDirectory: backupDirectory, prior: prior, result: &result, cancellation: cancellation)
            }
        } catch let error as BatchIOError {
            throw error
        } catch MigrationError.interrupted where timedOut.isCancelled {
            result.status = .failed
            result.error = "took longer than \(String(format: "%g", options.storeTimeout ?? 0)) s (--store-timeout) and was stopped; its work is kept, so a rerun with --retry-failed and a larger limit resumes it"
        } catch MigrationError.interrupted {
            result.status = .interrupted
            result.error = "interrupted; the next run of the same command resumes it from its checkpoint"
        } catch {
            result.status = .failed
            result.error = String(describing: error)
        }
        if case .directory = options.output, result.status == .failed || result.status == .skipped {
            // No result. (Its folder stays: another store, or another shard, may be using it.)
            result.output = nil
        }
        // A resumed store's time includes the runs it was interrupted in.
        result.seconds = Date().timeIntervalSince(started) + (prior?.status == .interrupted ? prior?.seconds ?? 0 : 0)
        result.time = Date().timeIntervalSince1970
        result.outputExisted = nil
        try manifest.append(result)
        return result
    }

    private func migration(source: String, destination: String, cancellation: Cancellation) -> Migration {
        var migration = Migration(pipeline: options.pipeline, options: options.run)
        migration.source = source
        migration.destination = destination
        migration.restart = options.restart
        migration.cancellation = cancellation
        return migration
    }

    /// Records that a store's migration begins, so that a kill between its end and its
    /// outcome's entry is recognised on the next run.
    private func recordStart(_ store: BatchStore, output: String, outputExisted: Bool) throws {
        var entry = BatchStoreResult(store: store, status: .started, output: output)
        entry.outputExisted = outputExisted
        try manifest.append(entry)
    }

    /// `--out DIR`: the result goes to `DIR/RELATIVE_PATH`, its work files beside it.
    private func migrate(_ store: BatchStore, into folder: String, prior: BatchStoreResult?, result: inout BatchStoreResult,
                         cancellation: Cancellation) throws {
        let fm = FileManager.default
        let destination = BatchStoreList.absolute(store.relativePath, in: BatchStoreList.absolute(folder, in: fm.currentDirectoryPath))
        result.output = destination
        let checkpoint = CheckpointFile(destination: destination)
        let exists = fm.fileExists(atPath: destination)
        var migration = migration(source: store.path, destination: destination, cancellation: cancellation)
        migration.replace = options.restart ? .force : .refuse

        // Killed after the engine installed the result and removed its checkpoint, before
        // the outcome was written: the result is complete (it is only ever renamed into
        // place after validation).
        if prior?.status == .started, prior?.outputExisted == false, exists, !checkpoint.exists,
           !fm.fileExists(atPath: destination + ".etl-tmp") {
            let plan = try migration.planReadingSource()
            result.fromVersion = plan.sourceVersion
            result.toVersion = plan.targetVersion
            result.status = .done
            result.rows = BatchReport.rowsInStore(destination, plan: plan)
            result.notes.append("finished just before the batch was stopped; rows counted in the result")
            return
        }

        try fm.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try recordStart(store, output: destination, outputExisted: exists)
        if exists && !options.restart && !checkpoint.exists {
            throw BatchStoreError("its result \(destination) already exists (left by an earlier batch?) and is not replaced: "
                                  + "remove it, or run with --restart to migrate every store again")
        }
        // Read from the store: its layout checked, its version detected (up to date: skipped).
        let planning = Date()
        let plan = try migration.planReadingSource()
        result.fromVersion = plan.sourceVersion
        result.toVersion = plan.targetVersion
        if plan.steps.isEmpty {
            result.status = .skipped
            result.output = nil
            result.notes.append("up to date: already at \(plan.targetVersion); nothing written")
            return
        }
        let clock = BatchStoreClock()
        clock.planned(since: planning)
        let summary = try run(migration, store: store, clock: clock)
        finish(summary, plan: plan, result: &result)
        result.cost = clock.finished()
    }

    /// `--in-place`: the store is replaced by its result, atomically, after validation.
    ///
    /// The run reads the store through a hard link, `STORE.etl-original` (the engine never
    /// writes over its own source), and writes the store's path with the `.backup` replace
    /// policy: the engine keeps the original as `STORE.bak` and renames the result over
    /// the store. Then the original is moved to the backup folder if one is given. Whether
    /// the link and the store are still the same file tells, after a kill, whether the
    /// store was already replaced.
    private func migrateInPlace(_ store: BatchStore, backupDirectory: String?, prior: BatchStoreResult?, result: inout BatchStoreResult,
                                cancellation: Cancellation) throws {
        let fm = FileManager.default
        let path = store.path
        let original = path + ".etl-original"
        result.output = path
        let backupTarget = backupDirectory.map {
            BatchStoreList.absolute(store.relativePath, in: BatchStoreList.absolute($0, in: fm.currentDirectoryPath))
        } ?? path + ".bak"

        if fm.fileExists(atPath: original), !BatchFiles.sameFile(original, path) {
            // Killed after the store was replaced: only the bookkeeping is left.
            try finishReplaced(store, original: original, backupDirectory: backupDirectory, backupTarget: backupTarget, result: &result)
            return
        }
        try recordStart(store, output: path, outputExisted: true)
        for companion in ["-wal", "-journal"] where BatchFiles.size(path + companion) > 0 {
            throw BatchStoreError("has a non-empty \(path + companion): replacing the store in place would leave it beside the new store. "
                                  + "Let the app (or `sqlite3 STORE 'PRAGMA wal_checkpoint(TRUNCATE)'`) fold it into the store first, or migrate with --out")
        }
        let planning = Date()
        let plan = try migration(source: path, destination: path, cancellation: cancellation).planReadingSource()
        result.fromVersion = plan.sourceVersion
        result.toVersion = plan.targetVersion
        if plan.steps.isEmpty || BatchStoreVersion.isAtTarget(path, plan: plan) {
            if fm.fileExists(atPath: original) { try? fm.removeItem(atPath: original) }
            if prior?.status == .started, fm.fileExists(atPath: backupTarget), !BatchFiles.sameFile(backupTarget, path) {
                // Killed after the original was moved to its backup, before the outcome was written.
                result.status = .done
                result.backup = backupTarget
                result.rows = BatchReport.rowsInStore(path, plan: plan)
                result.notes.append("finished just before the batch was stopped; rows counted in the result")
                return
            }
            result.status = .skipped
            result.notes.append("up to date: already at \(plan.targetVersion); left as it is")
            return
        }
        if !fm.fileExists(atPath: original) {
            guard link(path, original) == 0 else {
                throw BatchStoreError("cannot make the hard link \(original) to read the store through while it is replaced: \(String(cString: strerror(errno)))")
            }
        }
        var migration = migration(source: original, destination: path, cancellation: cancellation)
        migration.replace = .backup
        let clock = BatchStoreClock()
        clock.planned(since: planning)
        let summary: RunSummary
        do {
            summary = try run(migration, store: store, clock: clock)
        } catch {
            // Not replaced: the store is as it was; the link is of no use (a rerun makes it again).
            if BatchFiles.sameFile(original, path) { try? fm.removeItem(atPath: original) }
            throw error
        }
        finish(summary, plan: plan, result: &result)
        result.cost = clock.finished()
        result.backup = try keepOriginal(of: path, original: original, backupDirectory: backupDirectory, backupTarget: backupTarget)
    }

    /// The store at `path` is already the result; its original is at `original`.
    private func finishReplaced(_ store: BatchStore, original: String, backupDirectory: String?, backupTarget: String,
                                result: inout BatchStoreResult) throws {
        let path = store.path
        // Only planned here (for the versions), never run.
        var migration = migration(source: original, destination: path, cancellation: Cancellation())
        migration.replace = .backup
        migration.restart = false
        let plan = try migration.planReadingSource()
        result.fromVersion = plan.sourceVersion
        result.toVersion = plan.targetVersion
        let checkpoint = CheckpointFile(destination: path)
        if let position = try checkpoint.read()?.position {
            guard position.stage == .finalize else {
                throw BatchStoreError("\(path) is no longer the file \(original) links to, but its migration had not finished: "
                                      + "it was changed during the batch. Restore it from \(original) and run again")
            }
            // The engine sees its result installed and only finishes its cleanup.
            let summary = try run(migration, store: store)
            finish(summary, plan: plan, result: &result)
        } else {
            result.status = .done
            result.rows = BatchReport.rowsInStore(path, plan: plan)
            result.notes.append("finished just before the batch was stopped; rows counted in the result")
        }
        result.backup = try keepOriginal(of: path, original: original, backupDirectory: backupDirectory, backupTarget: backupTarget)
    }

    /// Moves the original (the link `original`) to where it is kept, and removes the
    /// engine's `STORE.bak` when it goes to a backup folder instead.
    private func keepOriginal(of path: String, original: String, backupDirectory: String?, backupTarget: String) throws -> String {
        let fm = FileManager.default
        let engineBackup = path + ".bak"
        let originalFile = BatchFiles.identity(original)
        if backupDirectory != nil {
            try fm.createDirectory(atPath: (backupTarget as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // The original's external storage files go with it (the store's folder holds them
            // with the new store's: links, added, never removed).
            try ExternalBinaryStorage.install(from: ExternalBinaryStorage.folder(ofStore: path), at: backupTarget, backup: nil)
            try BatchFiles.move(original, to: backupTarget)
            if let originalFile, BatchFiles.identity(engineBackup) == originalFile {
                try? fm.removeItem(atPath: engineBackup)
                try? fm.removeItem(atPath: ExternalBinaryStorage.supportFolder(ofStore: engineBackup))
            }
        } else if let originalFile, BatchFiles.identity(engineBackup) == originalFile {
            try? fm.removeItem(atPath: original)
        } else {
            try BatchFiles.move(original, to: engineBackup)
        }
        // An empty -wal or a -shm of the original belongs with it, not beside the new store.
        for companion in ["-wal", "-shm"] where fm.fileExists(atPath: path + companion) {
            try? fm.removeItem(atPath: backupTarget + companion)
            rename(path + companion, backupTarget + companion)
        }
        BatchFiles.syncFolder(of: path)
        BatchFiles.syncFolder(of: backupTarget)
        return backupTarget
    }

    private func finish(_ summary: RunSummary, plan: Plan, result: inout BatchStoreResult) {
        if summary.upToDate {
            result.status = .skipped
            result.notes.append("up to date: already at \(plan.targetVersion)")
            return
        }
        result.status = .done
        result.rows = BatchReport.rows(summary, plan: plan)
        result.notes += summary.notes
        if let rejects = summary.rejectFile { result.notes.append("rejected rows are kept in \(rejects)") }
    }
}

/// Why one store could not be migrated, found by the batch itself.
struct BatchStoreError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// File operations the batch needs beyond FileManager's.
enum BatchFiles {
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = identity(a), let y = identity(b) else { return false }
        return x == y
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int64(info.st_size)
    }

    /// Renames, or (to another file system) copies, syncs and renames, then removes the
    /// source: at every instant the file is whole at one place at least.
    static func move(_ source: String, to target: String) throws {
        if rename(source, target) == 0 { return }
        let code = errno
        guard code == EXDEV else {
            throw BatchStoreError("cannot move \(source) to \(target): \(String(cString: strerror(code)))")
        }
        let partial = target + ".etl-partial"
        let fm = FileManager.default
        try? fm.removeItem(atPath: partial)
        do {
            try fm.copyItem(atPath: source, toPath: partial)
        } catch {
            throw BatchStoreError("cannot copy \(source) to \(partial): \(error)")
        }
        try? AtomicFile.sync(partial)
        guard rename(partial, target) == 0 else {
            throw BatchStoreError("cannot move \(partial) to \(target): \(String(cString: strerror(errno)))")
        }
        syncFolder(of: target)
        try? fm.removeItem(atPath: source)
    }

    static func syncFolder(of path: String) {
        try? AtomicFile.syncFolder(of: path)
    }

    /// Writes `data` to `path` through a temporary file beside it, renamed over it.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder.isEmpty ? "." : folder, withIntermediateDirectories: true)
        do {
            try AtomicFile.write(data, to: path, temporary: path + ".tmp-\(getpid())", durable: true)
        } catch {
            throw BatchIOError("cannot write \(error.path): \(error.reason)")
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
