import Foundation
import ETL

/// One store's migration, `--out` or `--in-place`, and how a rerun recognises where a
/// kill left it: the manifest's `started` entry, the checkpoint, and (in place) whether
/// the link `STORE.etl-original` and the store are still the same file.
extension Batch {
    /// Migrates one store and records its outcome in the manifest. Throws only when the
    /// manifest cannot be written.
    /// `reasons`: why a store recorded before is migrated again (`BatchTriage`), for its note.
    /// `files`: with `--out`, the job's run lock and work database, carried from store to store (`RunFileCarrier`).
    func process(_ store: BatchStore, prior: BatchStoreResult?, reasons: [String] = [], files: RunFileCarrier? = nil) throws -> BatchStoreResult {
        let started = Date()
        var result = BatchStoreResult(store: store, status: .failed)
        result.source = BatchSourceIdentity.of(store.path, whole: options.verifySources)
        result.inputs = inputsDigest
        if !reasons.isEmpty, prior?.status != .started, prior?.status != .interrupted {
            result.notes.append("migrated again: " + reasons.joined(separator: "; "))
        }
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
        // Two batches on one archive share the manifest: a store this batch saw `started`
        // when it began may since have been finished by the other one, which records its
        // outcome before it lets the store go. Read again under the store's lock, the
        // latest entry says whether a kill is left to recover from.
        var prior = prior
        if storeLock != nil, prior?.status == .started || prior?.status == .interrupted {
            prior = (try? BatchManifest.read(path: manifest.path))?.latest[store.path] ?? prior
        }
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
                try migrate(store, into: folder, prior: prior, result: &result, cancellation: cancellation, files: files)
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
        // Not synced on its own (`BatchManifest.append`): a crash that loses it leaves the
        // durable `started` entry, from which the rerun finds the store done (its result
        // installed: only ever renamed into place after validation, and synced), or runs it
        // again (resuming from its checkpoint). One fsync per store less.
        try manifest.append(result, durable: false)
        return result
    }

    private func migration(source: String, destination: String, cancellation: Cancellation) -> Migration {
        var migration = Migration(pipeline: options.pipeline, options: options.run)
        migration.source = source
        migration.destination = destination
        migration.restart = options.restart
        migration.cancellation = cancellation
        migration.plans = plans
        return migration
    }

    /// The engine removes its checkpoint, then lets go of its run lock, which removes the
    /// lock file: a kill in between leaves the file (no longer locked: the kernel let go of
    /// it with the process). A store found finished that way has no run to come that would
    /// remove it, so this does, unless a run holds it.
    private func removeStaleRunLock(of destination: String) {
        let path = RunLock.path(forDestination: destination)
        guard FileManager.default.fileExists(atPath: path) else { return }
        (try? RunLock.take(destination: destination, path: path))??.release()
    }

    /// Records that a store's migration begins, so that a kill between its end and its
    /// outcome's entry is recognised on the next run. `durable`: synced before returning;
    /// else the line's number, to be synced before the result is put in place.
    @discardableResult
    private func recordStart(_ store: BatchStore, output: String, outputExisted: Bool, durable: Bool = true) throws -> Int {
        var entry = BatchStoreResult(store: store, status: .started, output: output)
        entry.outputExisted = outputExisted
        return try manifest.append(entry, durable: durable)
    }

    /// `--out DIR`: the result goes to `DIR/RELATIVE_PATH`, its work files beside it.
    private func migrate(_ store: BatchStore, into folder: String, prior: BatchStoreResult?, result: inout BatchStoreResult,
                         cancellation: Cancellation, files: RunFileCarrier?) throws {
        let fm = FileManager.default
        let destination = BatchStoreList.absolute(store.relativePath, in: BatchStoreList.absolute(folder, in: fm.currentDirectoryPath))
        result.output = destination
        let checkpoint = CheckpointFile(destination: destination)
        var exists = fm.fileExists(atPath: destination)
        if prior?.status == .done, exists {
            // Queued again because its source, its inputs or the result itself changed since
            // (`BatchTriage`): the result is stale, and goes before the store is migrated again (a kill then finds no result, as for a new store).
            try fm.removeItem(atPath: destination)
            exists = false
            result.notes.append("its stale result was removed before migrating it again")
        }
        var migration = migration(source: store.path, destination: destination, cancellation: cancellation)
        migration.replace = options.restart ? .force : .refuse
        // The manifest's durable `started` entry records the run, and a rerun checks the
        // result it finds (`BatchTriage`): the engine spares the fsyncs that record it again.
        migration.options.installRecordedByCaller = true
        migration.options.carriedFiles = files

        // Killed after the engine installed the result, before the outcome was written: the
        // result is complete (it is only ever renamed into place after validation). With no
        // checkpoint (a small store's run writes none, `RunOptions.installRecordedByCaller`),
        // the kill may have come before the run removed its work files.
        if prior?.status == .started, prior?.outputExisted == false, exists, !checkpoint.exists,
           !fm.fileExists(atPath: destination + ".etl-tmp") {
            let plan = try migration.planReadingSource()
            WorkArea.removeLeftovers(destination: destination, stepCount: plan.steps.count)
            result.fromVersion = plan.sourceVersion
            result.toVersion = plan.targetVersion
            result.status = .done
            result.rows = BatchReport.rowsInStore(destination, plan: plan)
            result.notes.append("finished just before the batch was stopped; rows counted in the result")
            result.result = BatchSourceIdentity.of(destination)
            removeStaleRunLock(of: destination)
            return
        }

        try fm.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Synced in the background while the store is migrated, and waited for before its
        // result is put in place (`BatchManifest.append`): the store's fsync wait is spent
        // working, not idle (an fsync is a flush of the disk both jobs wait for).
        let started = try recordStart(store, output: destination, outputExisted: exists, durable: false)
        let log: BatchManifest = manifest
        log.syncInBackground(through: started)
        migration.options.beforeInstall = { try log.sync(through: started) }
        if exists && !options.restart && !checkpoint.exists {
            throw BatchStoreError("its result \(destination) already exists (left by an earlier batch?) and is not replaced: "
                                  + "remove it, or run with --restart to migrate every store again")
        }
        // Read from the store: its layout checked, its version detected (up to date: skipped).
        // Opened and planned once: the run reads the same store with the same plan.
        let opening = Date()
        let source = try migration.openSource()
        let opened = Date()
        let plan = try migration.plan(readingSource: source)
        result.fromVersion = plan.sourceVersion
        result.toVersion = plan.targetVersion
        if plan.steps.isEmpty {
            result.status = .skipped
            result.output = nil
            result.notes.append("up to date: already at \(plan.targetVersion); nothing written")
            return
        }
        let clock = BatchStoreClock()
        clock.planned(since: opening, opened: opened)
        let summary = try run(migration, store: store, planned: (plan, source), clock: clock)
        finish(summary, plan: plan, result: &result)
        result.cost = clock.finished()
        if result.status == .done { result.result = BatchSourceIdentity.of(destination) }
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
        let opening = Date()
        let opened: Date
        let plan: Plan
        do {
            // Planned from the store's own path, closed again: the run reads it through the link (below).
            let planning = migration(source: path, destination: path, cancellation: cancellation)
            let source = try planning.openSource()
            opened = Date()
            plan = try planning.plan(readingSource: source)
        }
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
                removeStaleRunLock(of: path)
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
        clock.planned(since: opening, opened: opened)
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
            removeStaleRunLock(of: path)
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
        result.rows = BatchReport.rows(summary)
        if !summary.drops.isEmpty {
            result.dropped = summary.drops.reduce(into: [:]) { $0["\($1.step): \($1.name)", default: 0] += $1.count }
        }
        let rejected = summary.mappings.reduce(0) { $0 + $1.rejected }, nulled = summary.mappings.reduce(0) { $0 + $1.nullsOnPurpose }
        result.rejected = rejected > 0 ? rejected : nil
        result.nulled = nulled > 0 ? nulled : nil
        result.notes += summary.notes
        if let rejects = summary.rejectFile { result.notes.append("rejected rows are kept in \(rejects)") }
    }
}
