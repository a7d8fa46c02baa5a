import Foundation
import ETLStore
import ETLModel
import ETLPipeline

/// Options of one run, beyond the pipeline file.
public struct RunOptions: Sendable {
    public var chunkSize: Int
    public var workers: Int
    public var replace: ReplacePolicy
    /// Discard a checkpoint and the files of an earlier run, and start over.
    public var restart = false
    /// Write checkpoints (turned off only to measure what they cost).
    public var checkpoints = true
    /// Set it to stop after the chunk being loaded, with a checkpoint.
    public var cancellation: Cancellation?
    /// The policies pipelines may name.
    public var policies = PolicyRegistry()
    /// Run SQLite's quick check over the source before reading it (`etl run --no-check` turns it off).
    public var checkSource = true
    /// Run declarative steps inside SQLite when they translate exactly (`PushdownPlan`);
    /// off, every step runs row by row (`etl run --no-pushdown`).
    public var pushdown = true
    /// Milliseconds to wait for a source locked by another program's write.
    public var lockTimeout: Int32 = 5_000
    /// Source rows that may be rejected (kept in the reject file) before the run fails.
    public var maxRejects = 0

    public init(chunkSize: Int, workers: Int, replace: ReplacePolicy = .refuse) {
        self.chunkSize = chunkSize
        self.workers = workers
        self.replace = replace
    }
}

/// Runs a plan: each step's stages in order, then the atomic replacement; continues an
/// interrupted run from its checkpoint.
///
/// The source is only ever opened read-only. Until the final rename, everything is
/// written to files beside the destination (see `WorkArea`). A failure that a rerun
/// would repeat (a row that fails, validation) removes them; any other stop (a kill,
/// Ctrl-C, a full disk) keeps them and the checkpoint, so the same command resumes.
public struct Engine {
    public let plan: Plan
    public let options: RunOptions
    /// The source, when the caller already opened it (to plan); else the engine opens it.
    public let source: SourceStore?

    public init(plan: Plan, options: RunOptions, source: SourceStore? = nil) {
        self.plan = plan
        self.options = options
        self.source = source
    }

    public var checkpointFile: CheckpointFile { CheckpointFile(destination: plan.destinationPath) }

    public func run(progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        let started = Date()
        let source = plan.sourcePath
        let destination = plan.destinationPath
        let area = WorkArea(destination: destination)
        let file = checkpointFile
        // Before the lock file is made beside it: a device or FIFO is never a destination.
        if let kind = OwnFile.specialKind(at: destination) {
            throw MigrationError.badDestination(path: destination, reason: "is \(kind); etl writes, and --force or --backup replace, only regular files")
        }
        // One run per destination, taken before any file of the destination is touched.
        let lock = try RunLock(destination: destination)
        defer { lock.release() }
        let sourceStore = try self.source ?? SourceStore(path: source, check: false, busyTimeout: options.lockTimeout)
        // The source's quick check runs beside the work; the result waits for it (below).
        let sourceCheck = options.checkSource ? try SourceCheck(path: source, busyTimeout: options.lockTimeout) : nil
        defer { sourceCheck?.cancel() }
        let sourceDatabase = sourceStore.database
        let identity = try RunIdentity.of(plan, pushdown: options.pushdown)
        let snapshot = try SourceSnapshot(path: source, database: sourceDatabase, identity: identity.source)
        guard !plan.steps.isEmpty else {
            // Already at the target version: nothing to write.
            return RunSummary(source: source, destination: destination, backup: nil, resumed: nil, redoneRows: 0,
                              mappings: [], seconds: Date().timeIntervalSince(started), upToDate: true)
        }

        if options.restart {
            file.remove()
            area.removeAll(stepCount: plan.steps.count)
        }
        let checkpoint = try file.read()
        if let checkpoint {
            let differences = checkpoint.identity.differences(from: identity)
            guard differences.isEmpty else { throw MigrationError.checkpointMismatch(path: file.path, differences: differences) }
            try checkpoint.check(against: plan, path: file.path)
            // Killed after the final rename, before the cleanup: the run had finished.
            if checkpoint.position.stage == .finalize, !FileManager.default.fileExists(atPath: area.temporaryDestination),
               FileManager.default.fileExists(atPath: destination) {
                area.removeAll(stepCount: plan.steps.count)
                file.remove()
                return RunSummary(source: source, destination: destination, backup: nil, resumed: checkpoint.position,
                                  redoneRows: 0, mappings: checkpoint.finished + checkpoint.counters,
                                  seconds: Date().timeIntervalSince(started))
            }
        } else {
            // Files of a run that died before its first checkpoint hold nothing to keep.
            area.removeAll(stepCount: plan.steps.count)
        }
        try checkDestination(destination, source: source)
        try checkSourceSchema(sourceDatabase)

        let run = RunState(plan: plan, identity: identity, file: file, enabled: options.checkpoints,
                           started: checkpoint?.started ?? Date(), finished: checkpoint?.finished ?? [])
        run.snapshot = snapshot
        if let checkpoint, checkpoint.position.stage == .finalize {
            progress(resumedEvent(checkpoint, redone: 0))
        }
        var backup: String?
        var redone = 0
        do {
            let first = checkpoint?.position.step ?? 0
            for index in first..<plan.steps.count {
                let step = plan.steps[index]
                let inputPath = index == 0 ? source : area.output(ofStep: index - 1, stepCount: plan.steps.count)
                let input = index == 0 ? sourceDatabase : try openIntermediate(inputPath)
                if index > 0 {
                    try ValidationProof.require(step: index - 1, run: identity, in: inputPath, store: inputPath, checkpoint: file.path)
                }
                let resume = index == first ? checkpoint : nil
                let output = area.output(ofStep: index, stepCount: plan.steps.count)
                if resume?.position.stage != .finalize {
                    redone += try runStep(step, input: input, inputPath: inputPath, output: output, area: area,
                                          resume: resume, run: run, progress: progress)
                }
                if index < plan.steps.count - 1 {
                    try run.stepFinished(next: index + 1)
                    if index > 0 { WorkArea.remove(store: inputPath) }
                }
            }
            try sourceCheck?.wait()
            let last = plan.steps.count
            let name = plan.steps.last!.name
            try ValidationProof.require(step: last - 1, run: identity, in: area.work, store: area.temporaryDestination, checkpoint: file.path)
            try snapshot.checkWhole()
            try run.save(.init(step: last - 1, stage: .finalize, mapping: 0, key: [], done: 0, total: 1), durable: true)
            progress(ProgressEvent(kind: .started, step: last, stepCount: last, stepName: name, stage: .finalize, done: 0, total: 1))
            backup = try Finalizer.install(area.temporaryDestination, at: destination, backup: area.backup, policy: options.replace)
            progress(ProgressEvent(kind: .finished, step: last, stepCount: last, stepName: name, stage: .finalize, done: 1, total: 1))
        } catch {
            var error = describe(error, source: source)
            // A damaged source explains whatever failed after reading it: say that instead.
            if let sourceCheck, !Self.isInterruption(error) {
                do { try sourceCheck.wait() } catch let damage { error = damage }
            }
            switch error {
            case MigrationError.tooManyRejects:
                // The rejected rows are what the user needs to see: keep them, then clean up.
                _ = try? RejectFile(destination: destination).combine(stepCount: plan.steps.count)
                file.remove()
                area.removeAll(stepCount: plan.steps.count)
            case MigrationError.rowFailed, MigrationError.validationFailed, MigrationError.badSource:
                // A rerun would fail the same way: nothing here is worth resuming.
                file.remove()
                area.removeAll(stepCount: plan.steps.count)
            case MigrationError.interrupted:
                throw MigrationError.interrupted(checkpoint: options.checkpoints ? file.path : nil)
            default:
                break
            }
            throw error
        }
        // The checkpoint goes last: killed before it is gone, a rerun sees that the
        // destination was installed and only finishes this cleanup.
        let rejects = try RejectFile(destination: destination).combine(stepCount: plan.steps.count)
        area.removeAll(stepCount: plan.steps.count)
        file.remove()
        var summary = RunSummary(source: source, destination: destination, backup: backup, resumed: checkpoint?.position,
                                 redoneRows: redone, mappings: run.finished, seconds: Date().timeIntervalSince(started))
        summary.notes = notes() + run.notes
        summary.rejectFile = rejects
        return summary
    }

    private static func isInterruption(_ error: Error) -> Bool {
        if case MigrationError.interrupted = error { return true }
        return false
    }

    /// Runs one step, from its beginning or from a checkpoint inside it. Returns the number
    /// of rows that had been loaded after the checkpoint and were loaded again.
    private func runStep(_ step: StepPlan, input: Database, inputPath: String, output: String, area: WorkArea,
                         resume: Checkpoint?, run: RunState, progress: @escaping (ProgressEvent) -> Void) throws -> Int {
        let db: Database
        var nextKeys: [String: Int64]
        var redone = 0
        let tables = Set(step.destinationModel.entities.map { step.destinationLayout.table(of: $0.name).name }).sorted()
        let position = resume?.position
        let resuming = position.map { !$0.isStartOfStep } ?? false
        if let resume, let position, resuming {
            db = try openOutput(output, area: area)
            nextKeys = resume.nextKeys
            if position.stage == .create {
                redone = try Rollback(database: db, plan: step, nextKeys: nextKeys).undo(after: position)
            }
            progress(resumedEvent(resume, redone: redone))
        } else {
            if let resume { progress(resumedEvent(resume, redone: 0)) }
            db = try createOutput(output, area: area, layout: step.destinationLayout)
            nextKeys = Dictionary(uniqueKeysWithValues: tables.map { ($0, Int64(1)) })
        }
        let context = StepContext(plan: step, stepCount: plan.steps.count, source: input, sourcePath: inputPath,
                                  destination: db, workPath: area.work, chunkSize: options.chunkSize, workers: options.workers,
                                  counters: resuming ? resume?.counters : nil,
                                  nextKey: nextKeys, resume: resuming ? position : nil,
                                  cancellation: options.cancellation, policies: options.policies, maxRejects: options.maxRejects,
                                  priorRejects: run.finished.reduce(0) { $0 + $1.rejected }, report: progress)
        run.context = context
        do {
            var pushedDown = false
            var rowByRow = Set<Int>()
            if options.pushdown {
                let (stage, reason) = try PushdownStage.prepare(context)
                if let stage {
                    let byKey = try stage.run()
                    pushedDown = true
                    rowByRow = Set(stage.plan.rowByRow.keys)
                    for (index, why) in stage.plan.rowByRow.sorted(by: { $0.key < $1.key }) {
                        let found = byKey.contains(index) ? ", finding its rows by key (each has its source row's key)" : ""
                        run.notes.append("step \(step.name): mapping \(step.mappings[index].name) was created row by row (\(why)); the rest of the step ran inside SQLite\(found)")
                    }
                } else if let reason {
                    run.notes.append("step \(step.name) ran row by row, not inside SQLite: \(reason)")
                }
            }
            if !pushedDown {
                for index in step.mappings.indices {
                    try CreateStage(context: context, index: index).run()
                }
                for index in step.mappings.indices {
                    try RelateStage(context: context, index: index).run()
                }
            }
            try options.cancellation.map { if $0.isCancelled { throw MigrationError.interrupted(checkpoint: nil) } }
            try run.save(.init(step: step.index, stage: .validate, mapping: 0, key: [], done: 0, total: 3), durable: false)
            try db.transaction {
                for sql in step.destinationLayout.deferredIndexSQL { try db.execute(sql) }
            }
            try step.destinationLayout.finish(db)
            try ValidateStage(context: context, pushedDown: pushedDown, rowByRow: rowByRow).run()
            try RejectFile(destination: plan.destinationPath).export(step: step.index, from: db)
            // Last, once all of it passed: what lets the next step read this store, or the run install it.
            try ValidationProof.record(step: step.index, run: run.identity, schema: step.index == plan.steps.count - 1 ? "work" : "main", in: db)
        } catch let failure as RowFailure {
            throw rowFailed(failure, step: step)
        } catch let error as MigrationError {
            if case .tooManyRejects = error {
                // The rows that stopped the run are what the user needs to see.
                try? RejectFile(destination: plan.destinationPath).export(step: step.index, from: db)
            }
            throw error
        }
        try db.execute("DETACH DATABASE work")
        run.finished += context.counters
        run.context = nil
        return redone
    }

    /// What the user must do before the result is used.
    private func notes() -> [String] {
        guard let layout = plan.steps.last?.destinationLayout else { return [] }
        let coreData = (layout as? CoreDataLayout) ?? ((layout as? TemplatedLayout)?.base as? CoreDataLayout)
        if let coreData, !coreData.hasVersionHashes {
            return ["the destination has no Core Data version hashes (Z_METADATA): an app will not recognise its version. "
                    + "Give the destination a \"template\": an empty store the app created at \(plan.targetVersion)."]
        }
        return []
    }

    /// Says where a resumed run continues, and how many source rows it loads again.
    private func resumedEvent(_ checkpoint: Checkpoint, redone: Int) -> ProgressEvent {
        let position = checkpoint.position
        var event = ProgressEvent(kind: .resumed, step: position.step + 1, stepCount: plan.steps.count,
                                  stepName: plan.steps[position.step].name, stage: position.stage,
                                  mapping: position.stage == .create || position.stage == .relate ? checkpoint.mappings[safe: position.mapping] : nil,
                                  done: position.done, total: position.total)
        event.redone = redone
        return event
    }

    private func createOutput(_ output: String, area: WorkArea, layout: any StoreLayout) throws -> Database {
        WorkArea.remove(store: output)
        WorkArea.remove(store: area.work)
        do {
            let db = try Database(path: output, mode: .create)
            try configure(db, area: area)
            try db.transaction {
                for sql in layout.tableSQL { try db.execute(sql) }
                try db.execute(WorkArea.schema)
            }
            return db
        } catch let error as StoreError {
            throw MigrationError.badDestination(path: output, reason: "cannot create the new store: \(error.message)")
        }
    }

    private func openOutput(_ output: String, area: WorkArea) throws -> Database {
        for file in [output, area.work] where !FileManager.default.fileExists(atPath: file) {
            throw MigrationError.badCheckpoint(path: checkpointFile.path, reason: "the work file \(file) it continues is missing")
        }
        let db = try Database(path: output, mode: .readWrite)
        try configure(db, area: area)
        return db
    }

    /// The file is private until the final rename, which is preceded by an fsync: per-commit
    /// durability buys nothing here and costs a lot. A rollback journal keeps every chunk's
    /// transaction atomic across the store and the work file, even when the process is
    /// killed mid-commit. Page caches are fixed (4 MiB each) so memory stays flat whatever
    /// the store's size.
    private func configure(_ db: Database, area: WorkArea) throws {
        try db.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -4096")
        try db.execute("ATTACH DATABASE \(SQLValue.text(area.work).sqlLiteral) AS work")
        try db.execute("PRAGMA work.journal_mode = DELETE; PRAGMA work.synchronous = OFF; PRAGMA work.cache_size = -4096")
    }

    private func openIntermediate(_ path: String) throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MigrationError.badCheckpoint(path: checkpointFile.path, reason: "the store \(path) an earlier step wrote is missing")
        }
        return try Database(path: path, mode: .readOnly)
    }

    /// SQLite's errors say what failed; this says which store and what it means for the user.
    private func describe(_ error: Error, source: String) -> Error {
        guard let error = error as? StoreError else { return error }
        // Before anything else: memory, not the store, ran out — whichever file SQLite was at.
        if error.code & 0xff == SQLiteCode.noMemory {
            return MigrationError.outOfMemory(what: "in SQLite, working on \(error.path)")
        }
        if error.path == source {
            let meaning = error.code == SQLiteCode.corrupt || error.code == SQLiteCode.notADatabase
                ? "is damaged or truncated; nothing was written (\(error.message))" : error.description
            return MigrationError.badSource(path: source, reason: meaning)
        }
        switch error.code {
        case SQLiteCode.full, SQLiteCode.ioError:
            // Out of space (or over the file size limit): the work so far is kept and resumes.
            return MigrationError.badDestination(path: plan.destinationPath, reason:
                "cannot write \(error.path) (\(error.message)): the disk may be full. \(spaceReport()) "
                + "Free space, then run the same command again to resume")
        case SQLiteCode.cantOpen, SQLiteCode.readOnly:
            return MigrationError.badDestination(path: plan.destinationPath, reason: "cannot write \(error.path): \(error.message)")
        default:
            return error
        }
    }

    /// "The folder X has N MB free; the source is M MB": how much room a run needs, roughly
    /// the source's size again for the new store plus as much for its work file.
    private func spaceReport() -> String {
        let folder = URL(fileURLWithPath: plan.destinationPath).deletingLastPathComponent().path
        let free = ((try? FileManager.default.attributesOfFileSystem(forPath: folder))?[.systemFreeSize] as? NSNumber)?.int64Value
        let source = ((try? FileManager.default.attributesOfItem(atPath: plan.sourcePath))?[.size] as? NSNumber)?.int64Value ?? 0
        let mb = { (bytes: Int64) in String(format: "%.1f MB", Double(bytes) / 1_000_000) }
        return "The folder \(folder) has \(free.map(mb) ?? "an unknown amount of space") free; "
            + "a run needs about twice the source's size (\(mb(source))) there."
    }

    private func rowFailed(_ failure: RowFailure, step: StepPlan) -> MigrationError {
        // Find the mapping by the expression that failed.
        let mapping = step.mappings.first { m in
            m.filter?.text == failure.expression || m.uniqueBy?.text == failure.expression || m.forEach?.text == failure.expression
                || m.attributes.contains { if case .expression(let e) = $0.source { return e.text == failure.expression } else { return false } }
                || m.relationships.contains { $0.expression.text == failure.expression }
        }
        return .rowFailed(step: step.name, mapping: mapping?.name ?? "?", entity: mapping?.sourceEntity ?? "?",
                          key: failure.key, expression: failure.expression, reason: failure.reason)
    }

    private func checkDestination(_ destination: String, source: String) throws {
        let fm = FileManager.default
        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MigrationError.badDestination(path: destination, reason: "the folder \(folder) does not exist: create it first")
        }
        guard fm.isWritableFile(atPath: folder) else {
            throw MigrationError.badDestination(path: destination, reason: "the folder \(folder) is not writable")
        }
        // A symlink would make the rename replace the link, not what it points at, and lead
        // the work files elsewhere than the user thinks: refuse rather than guess.
        if (try? fm.destinationOfSymbolicLink(atPath: destination)) != nil {
            throw MigrationError.badDestination(path: destination, reason: "is a symbolic link; name the real file (or a new path) as the destination")
        }
        if URL(fileURLWithPath: destination).standardizedFileURL.resolvingSymlinksInPath()
            == URL(fileURLWithPath: source).standardizedFileURL.resolvingSymlinksInPath() {
            throw MigrationError.badDestination(path: destination, reason: "is the source store itself; the source is never modified, so write the result elsewhere")
        }
        if fm.fileExists(atPath: destination) && options.replace == .refuse {
            throw MigrationError.badDestination(path: destination, reason: "already exists. Pass --backup to keep it as \(destination).bak, or --force to replace it")
        }
    }

    /// Checks that the source has the tables and columns the first step reads, so a
    /// store of another version fails before any work, naming what is missing.
    private func checkSourceSchema(_ db: Database) throws {
        guard let step = plan.steps.first else { return }
        let layout = step.sourceLayout
        let path = plan.sourcePath
        var entities = Set<String>()
        for m in step.mappings {
            entities.insert(m.sourceEntity)
            if let item = m.itemEntity { entities.insert(item) }
        }
        for entity in entities.sorted() {
            let table = layout.table(of: entity)
            let found: TableInfo?
            do { found = try db.table(named: table.name) } catch {
                throw MigrationError.badSource(path: path, reason: "cannot read the schema: \(error)")
            }
            guard let info = found else {
                throw MigrationError.badSource(path: path, reason: "has no table \(table.name) for entity \(entity): is it a store of model \(layout.model.version) in the \(layout.name) layout?")
            }
            try SourceStore.checkKey(db, path: path, table: table.name, keyColumn: table.keyColumn)
            for attribute in layout.model.attributes(of: entity) {
                let column = layout.column(ofAttribute: attribute.name, entity: entity)
                guard info.column(named: column) != nil else {
                    throw MigrationError.badSource(path: path, reason: "table \(table.name) has no column \(column) for \(entity).\(attribute.name): is it a store of model \(layout.model.version)?")
                }
            }
        }
        try checkSourceJoinTables(db)
    }
}

extension Engine {
    /// The join tables the first step reads must be base tables: never read a view of the store.
    fileprivate func checkSourceJoinTables(_ db: Database) throws {
        guard let step = plan.steps.first else { return }
        let layout = step.sourceLayout
        var checked = Set<String>()
        for entity in layout.model.entities {
            for r in layout.model.relationships(of: entity.name) {
                guard case .joinTable(let table, _, _) = layout.storage(ofRelationship: r.name, entity: entity.name),
                      checked.insert(table).inserted else { continue }
                if try db.table(named: table) == nil {
                    throw MigrationError.badSource(path: plan.sourcePath, reason: "has no table \(table) for \(entity.name).\(r.name): is it a store of model \(layout.model.version)?")
                }
            }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
