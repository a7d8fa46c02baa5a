import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// Runs a plan: each step's stages in order, then the atomic replacement; continues an
/// interrupted run from its checkpoint.
///
/// The source is only ever opened read-only. Until the final rename, everything is
/// written to files beside the destination (see `WorkArea`). A failure that a rerun
/// would repeat (a row that fails, validation) removes them; any other stop (a kill,
/// Ctrl-C, a full disk) keeps them and the checkpoint, so the same command resumes.
public struct Engine {
    public private(set) var plan: Plan
    public let options: RunOptions
    /// The source, when the caller already opened it (to plan); else the engine opens it.
    public let source: SourceStore?

    /// Set once the steps to run are chosen from the plan's, with what the choice noted.
    private var chosenSteps: [String]?

    public init(plan: Plan, options: RunOptions, source: SourceStore? = nil) {
        self.plan = plan
        self.options = options
        self.source = source
    }

    public var checkpointFile: CheckpointFile { CheckpointFile(destination: plan.destinationPath) }

    // The run's numbers: the options' overrides, else the pipeline's own.
    private var chunkSize: Int { options.chunkSize ?? plan.spec.options.chunkSize }
    private var workers: Int { options.workers ?? plan.spec.options.workers }
    private var maxRejects: Int { options.maxRejects ?? plan.spec.options.maxRejects }

    public func run(progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        var apart = self
        apart.plan.fusedSteps = nil
        apart.chosenSteps = chosenSteps ?? []
        // A run that continues one of the steps as written goes on that way: it was started
        // over apart (below), or by an engine that did not fuse them.
        guard let fused = plan.fusedSteps, options.fuseSteps,
              (try? checkpointFile.read()).map({ $0.steps != plan.steps.map(\.name) }) ?? true else {
            return try apart.runChosen(progress: progress).summary()
        }
        // The fused steps (numbered as the steps of the run), each checked beside its run (`FusionCheck`).
        var together = apart
        together.plan.steps = fused
        switch try together.runChosen(progress: progress) {
        case .finished(let summary):
            return summary
        case .apart(let note):
            // Nothing of the fused run is worth keeping: the steps start over apart.
            WorkArea(destination: plan.destinationPath).removeAll(stepCount: together.plan.steps.count)
            checkpointFile.remove()
            apart.chosenSteps = [note]
            return try apart.runChosen(progress: progress).summary()
        }
    }

    /// How a run of the chosen steps ended.
    private enum RunEnd {
        case finished(RunSummary)
        /// A fused step's check beside it objected (`FusionCheck`): its steps must run apart.
        case apart(note: String)

        /// The summary of a run of steps as written: only a fused step is checked beside its
        /// run (`FusionCheck`), so only a fused step ends apart.
        func summary() -> RunSummary {
            switch self {
            case .finished(let summary): return summary
            case .apart(let note): preconditionFailure("a step as written was told to run apart: \(note)")
            }
        }
    }

    private func runChosen(progress: @escaping (ProgressEvent) -> Void) throws -> RunEnd {
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
        let carried = options.carriedFiles
        let lock = try carried?.take(destination: destination) ?? RunLock(destination: destination)
        defer { if let carried { carried.park(lock) } else { lock.release() } }
        let sourceStore = try self.source ?? SourceStore(path: source, check: false, busyTimeout: options.lockTimeoutMilliseconds)
        // What the set-up asks the source (below, up to the steps), in one read transaction:
        // its lock taken once instead of once per question (`Database.ReadTransaction`).
        let settingUp = try sourceStore.database.beginReading()
        defer { settingUp.end() }
        // The source's quick check runs beside the work; the result waits for it (below).
        let sourceCheck = options.checkSource
            ? try SourceCheck(path: source, source: sourceStore.database, busyTimeout: options.lockTimeoutMilliseconds,
                            smallStoreBytes: options.tuning.smallStoreBytes) : nil
        defer { sourceCheck?.cancel() }
        let sourceDatabase = sourceStore.database
        let identity = try RunIdentity.of(plan, pushdown: options.pushdown)
        let snapshot = try SourceSnapshot(path: source, database: sourceDatabase, identity: identity.source)
        guard !plan.steps.isEmpty else {
            // Already at the target version: nothing to write.
            return .finished(RunSummary(source: source, destination: destination, backup: nil, resumed: nil, redoneRows: 0,
                                        mappings: [], seconds: Date().timeIntervalSince(started), upToDate: true))
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
                var summary = RunSummary(source: source, destination: destination, backup: nil, resumed: checkpoint.position,
                                         redoneRows: 0, mappings: checkpoint.finished + checkpoint.counters,
                                         seconds: Date().timeIntervalSince(started) + Self.earlierSeconds(checkpoint))
                // Joined before the rename: what is there is this run's.
                let rejects = RejectFile(destination: destination).path
                summary.rejectFile = FileManager.default.fileExists(atPath: rejects) ? rejects : nil
                return .finished(summary)
            }
        } else {
            // Files of a run that died before its first checkpoint hold nothing to keep.
            area.removeAll(stepCount: plan.steps.count)
        }
        try checkDestination(destination, source: source)
        // What the source holds that the run refuses, before a row is read (`etl plan` asks
        // `SourceRefusals.check` for the same, in this order).
        try SourceRefusals.schema(plan, sourceDatabase)
        // Tables no entity owns (history, CloudKit, unknown) are refused here, before a row
        // is read, unless the pipeline says what to do with them.
        let unmodeled = try UnmodeledTables(plan: plan, source: sourceDatabase)
        if checkpoint.map({ $0.position.step == 0 }) ?? true {
            try SourceRefusals.laterSteps(plan, sourceDatabase)
        }

        let run = RunState(plan: plan, identity: identity, file: file, enabled: options.checkpoints,
                           started: checkpoint?.started ?? Date(), finished: checkpoint?.finished ?? [], resumed: checkpoint != nil)
        run.snapshot = snapshot
        run.lessons = checkpoint?.lessons ?? StepLessons()
        if let checkpoint, checkpoint.position.stage == .finalize {
            progress(resumedEvent(checkpoint, redone: 0))
        }
        var backup: String?
        var rejects: String?
        var redone = 0
        settingUp.end()
        do {
            let first = checkpoint?.position.step ?? 0
            for index in first..<plan.steps.count {
                let step = plan.steps[index]
                let inputPath = index == 0 ? source : area.output(ofStep: index - 1, stepCount: plan.steps.count)
                let input = index == 0 ? sourceDatabase : try openIntermediate(inputPath)
                if index > 0 {
                    try ValidationProof.require(step: index - 1, run: identity, in: input, path: inputPath, store: inputPath, checkpoint: file.path)
                }
                let resume = index == first ? checkpoint : nil
                let output = area.output(ofStep: index, stepCount: plan.steps.count)
                if resume?.position.stage != .finalize {
                    switch try runStep(step, input: input, inputPath: inputPath, output: output, area: area,
                                       resume: resume, run: run, progress: progress) {
                    case .built(let outcome): redone += outcome.redone
                    case .apart(let note): return .apart(note: note)
                    case .startOver(let lesson): preconditionFailure("a step ended starting over (\(lesson)): runStep starts it over")
                    }
                }
                if index < plan.steps.count - 1 {
                    try run.stepFinished(next: index + 1)
                    if index > 0 { WorkArea.remove(store: inputPath) }
                }
            }
            try sourceCheck?.wait()
            let last = plan.steps.count
            let name = plan.steps.last!.name
            // A step resumed after its validation proves it by its record; one validated by
            // this process just wrote it.
            if !run.validatedHere.contains(last - 1) {
                try ValidationProof.require(step: last - 1, run: identity, in: area.work, store: area.temporaryDestination, checkpoint: file.path)
            }
            try snapshot.checkWhole()
            let finalize = Checkpoint.Position(step: last - 1, stage: .finalize, mapping: MappingID(0), progress: .nothingYet, done: 0, total: 1)
            // Its caller records the run itself (`RunOptions.installRecordedByCaller`): with
            // no checkpoint on disk and nothing at the destination, a crash before the rename
            // redoes a run of small steps, and one after it leaves a complete result the
            // caller finds.
            if options.installRecordedByCaller, !run.checkpointOnDisk, !FileManager.default.fileExists(atPath: destination) {
                run.keep(finalize)
            } else {
                try run.save(finalize, durable: true)
            }
            progress(ProgressEvent(kind: .started, step: last, stepCount: last, stepName: name, stage: .finalize, done: 0, total: 1))
            // In the finalize stage only, so a store that steps or validation may still work
            // on holds no carried trigger; in one transaction, and not again on a rerun that
            // finds it committed.
            if unmodeled.carries {
                try unmodeled.carry(into: Database(path: area.temporaryDestination, mode: .readWrite), sourcePath: source)
            }
            try options.beforeInstall?()
            if options.replace != .refuse || !FileManager.default.fileExists(atPath: destination) {
                try ExternalBinaryStorage.install(from: WorkArea.externalFolder(ofStore: area.temporaryDestination), at: destination,
                                                  backup: options.replace == .backup ? (area.backup, area.backupExternal) : nil)
            }
            // Joined before the rename, from step files kept until the cleanup: killed on
            // either side of the rename, the rerun finds every rejected row (joining again
            // gives the same file) and never a reject file of another run.
            rejects = try RejectFile(destination: destination).combine(stepCount: plan.steps.count)
            backup = try Finalizer.install(area.temporaryDestination, at: destination, backup: area.backup, policy: options.replace,
                                           syncFolder: !options.installRecordedByCaller)
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
                try? run.flush()
                throw MigrationError.interrupted(checkpoint: options.checkpoints ? file.path : nil)
            default:
                // A failure inside a step whose journals are in memory (a disk full or an I/O
                // error in a commit) may have left its files half written, with no journal on
                // disk to roll them back: no checkpoint then points into them, and the rerun
                // starts over from files it makes anew. (A stop rolls back in this process.)
                if !run.journalsInMemory { try? run.flush() }
            }
            throw error
        }
        // The checkpoint goes last: killed before it is gone, a rerun sees that the
        // destination was installed and only finishes this cleanup.
        options.carriedFiles?.parkWork(from: area.work)
        area.removeAll(stepCount: plan.steps.count)
        file.remove()
        var summary = RunSummary(source: source, destination: destination, backup: backup, resumed: checkpoint?.position,
                                 redoneRows: redone, mappings: run.finished,
                                 seconds: Date().timeIntervalSince(started) + Self.earlierSeconds(checkpoint))
        summary.notes = plan.notes + (chosenSteps ?? []) + notes() + run.notes + unmodeled.notes
        summary.drops = run.drops
        summary.rejectFile = rejects
        return .finished(summary)
    }

    /// The mappings' seconds a resumed run carries over from the runs it continues: the
    /// summary's total counts them too, so it is never less than the mappings' sum.
    private static func earlierSeconds(_ checkpoint: Checkpoint?) -> Double {
        guard let checkpoint else { return 0 }
        return (checkpoint.finished + checkpoint.counters).reduce(0) { $0 + $1.seconds }
    }

    private static func isInterruption(_ error: Error) -> Bool {
        if case MigrationError.interrupted = error { return true }
        return false
    }

    /// Runs one step, from its beginning or from a checkpoint inside it, and again from its
    /// beginning as often as a try learns that it must run another way (at most twice: a
    /// lesson once learned is not learned again). Never ends `.startOver`.
    private func runStep(_ step: StepPlan, input: Database, inputPath: String, output: String, area: WorkArea,
                         resume: Checkpoint?, run: RunState, progress: @escaping (ProgressEvent) -> Void) throws -> StepEnd {
        var resume = resume
        var again = false
        while true {
            let end = try tryStep(step, input: input, inputPath: inputPath, output: output, area: area, resume: resume, run: run,
                                  again: again, progress: progress)
            switch end {
            case .built, .apart:
                return end
            case .startOver(let lesson):
                // The decision is in the checkpoint before anything is undone: killed from here on,
                // the rerun starts the step over the same way (a fresh output), never continuing the
                // rows made inside SQLite (whose links would name rows made otherwise).
                run.context = nil
                run.lessons = run.lessons.learning(lesson)
                try run.save(.start(ofStep: step.index), durable: true)
                (resume, again) = (nil, true)
            }
        }
    }

    /// One try of a step.
    /// - Parameter again: the step starts over another way (`StepLesson`): what it drops
    ///   was told the first time.
    private func tryStep(_ step: StepPlan, input: Database, inputPath: String, output: String, area: WorkArea,
                         resume: Checkpoint?, run: RunState, again: Bool,
                         progress: @escaping (ProgressEvent) -> Void) throws -> StepEnd {
        let db: Database
        var nextKeys: [String: Int64]
        var redone = 0
        let tables = Set(step.destinationModel.entities.map { step.destinationLayout.table(of: $0.name).name }).sorted()
        let position = resume?.position
        let resuming = position.map { !$0.isStartOfStep } ?? false
        // What the step asks its source before a row is read, in one read transaction
        // (`Database.ReadTransaction`), ended before the executor reads it.
        let settingUp = try input.beginReading()
        defer { settingUp.end() }
        let firstNewKeys = try step.firstNewKeys(source: input)
        // Counted before a row is read: data the pipeline does not say is to go refuses the step.
        let removedData = try SourceRefusals.unread(step, pipeline: plan.spec.file, source: input, path: inputPath, memo: plan.memo)
        let withinOneChunk = try OneChunkStep.holds(input, chunkSize: chunkSize)
        // Whether the store starts with its plain indexes (a small step's), else built after its rows.
        var indexesMade = false
        var held: HeldLocks?
        if let resume, let position, resuming {
            db = try openOutput(output, area: area)
            run.journalsInMemory = false
            nextKeys = resume.nextKeys
            if position.stage == .create {
                redone = try Rollback(database: db, plan: step, nextKeys: nextKeys, firstNewKeys: firstNewKeys).undo(after: position)
            }
            progress(resumedEvent(resume, redone: redone))
        } else {
            if let resume { progress(resumedEvent(resume, redone: 0)) }
            // A step within one chunk of a run with no checkpoint on disk writes files no rerun
            // reads: killed, the run starts over and makes them anew. Their journals can stay
            // in memory (`configure`).
            let journalOnDisk = !(withinOneChunk && !run.checkpointOnDisk)
            db = try createOutput(output, area: area, layout: step.destinationLayout, journalOnDisk: journalOnDisk, indexes: withinOneChunk)
            run.journalsInMemory = !journalOnDisk
            held = journalOnDisk ? nil : try HeldLocks(db)
            indexesMade = withinOneChunk
            nextKeys = Dictionary(uniqueKeysWithValues: tables.map { ($0, firstNewKeys[$0] ?? 1) })
        }
        let context = StepContext(plan: step, stepCount: plan.steps.count, source: input, sourcePath: inputPath,
                                  destination: db, workPath: area.work, chunkSize: chunkSize, workers: workers,
                                  counters: resuming ? resume?.counters : nil,
                                  nextKey: nextKeys, resume: resuming ? position : nil,
                                  cancellation: options.cancellation, policies: options.policies, memo: plan.memo, maxRejects: maxRejects,
                                  priorRejects: run.finished.reduce(0) { $0 + $1.rejected }, tuning: options.tuning,
                                  report: progress)
        context.indexesMade = indexesMade
        run.context = context
        run.withinOneChunk = withinOneChunk
        // A fused step: what its source holds is checked beside it (`FusionCheck`), and a small
        // source's at once, so that a step that must run apart does not start.
        let fusionCheck = step.fusedFrom.isEmpty ? nil
            : try FusionCheck(sourcePath: inputPath, functions: options.policies.functions,
                             smallStoreBytes: options.tuning.smallStoreBytes).start(step, source: input)
        defer { fusionCheck?.cancel() }
        // A step resumed inside itself takes its counters, and what it did, from a checkpoint
        // file anyone can write: validation then compares the store with counts made in the
        // source, beside the step. A step run from its start in this process counts its own rows.
        let cancellation = options.cancellation
        let sourceCounts = !resuming ? nil
            : try SourceCounts.start(step, sourcePath: inputPath, functions: options.policies.functions,
                                     busyTimeout: options.lockTimeoutMilliseconds, smallStoreBytes: options.tuning.smallStoreBytes,
                                     stop: { cancellation?.isCancelled ?? false })
        defer { sourceCounts?.cancel() }
        if sourceCounts != nil { options.tuning.observe?(.sourceCounted(step: step.name)) }
        if let fusionCheck, fusionCheck.ranInline, let outcome = try? fusionCheck.wait(), outcome.apart {
            db.close()
            return .apart(note: outcome.note)
        }
        // A resumed step has the counts in its checkpoint.
        for removed in removedData.items {
            let mapping = step.mappings.first { $0.sourceEntity == removed.entity }
            if !resuming, let mapping { context.counters[mapping.ownTarget].dropped += removed.count }
            if again { continue }
            var event = ProgressEvent(kind: .dropped, step: step.index + 1, stepCount: plan.steps.count, stepName: step.name,
                                      stage: .create, mapping: nil, done: removed.count, total: removed.count)
            event.removed = removed.name
            progress(event)
            run.drops.append(DroppedData(step: step.name, name: removed.name, count: removed.count, declaredBy: removed.declaredBy ?? ""))
        }
        // Links of the source that name no row: rejected, or dropped as the pipeline says,
        // before a row is read, whichever executor runs the step (`DanglingLinks`).
        for dropped in try DanglingLinks(step: step, rules: plan.spec.danglingLinks).apply(to: context, count: !resuming) where !again {
            run.drops.append(DroppedData(step: step.name, name: dropped.name, count: dropped.count, declaredBy: DanglingLinkRules.declaredBy))
            let note = DanglingLinks.note(step: step.name, dropped)
            if !run.notes.contains(note) { run.notes.append(note) }
        }
        settingUp.end()
        var execution: StepOutcome
        do {
            let decider = StrategyDecider(pushdown: options.pushdown, lessons: run.lessons)
            let executor = try stepExecutor(for: context, decider: decider)
            if !(executor is PushdownExecutor) { try held?.release() }
            switch try executor.execute() {
            case .built(let outcome):
                execution = outcome
            case let end:  // starts over another way: nothing it made is kept
                db.close()
                return end
            }
            run.notes += execution.notes
            try options.cancellation.map { if $0.isCancelled { throw MigrationError.interrupted(checkpoint: nil) } }
            try run.save(.init(step: step.index, stage: .validate, mapping: MappingID(0), progress: .nothingYet, done: 0, total: 3), durable: false)
            let kept = KeptBookkeeping(step: step, associationsKept: execution.associationsKept, functions: options.policies.functions,
                                       memo: plan.memo)
            for note in try kept.copy(into: db, sourcePath: inputPath, sourceAttached: execution.sourceAttached) where !run.notes.contains(note) {
                run.notes.append(note)
            }
            if execution.sourceAttached { try PushdownStage.detach(db) }
            // Said of the store the run delivers (every step before carried the same markers).
            if step.index == plan.steps.count - 1 {
                for note in try DanglingExternalData(step: step).notes(in: db) where !run.notes.contains(note) { run.notes.append(note) }
            }
            if !indexesMade {
                try db.execute(inOneTransaction: step.destinationLayout.deferredIndexSQL)
            }
            try step.destinationLayout.finish(db)
            try db.execute(inOneTransaction: step.destinationLayout.triggerSQL)
            if let fusionCheck {
                // What the source holds decides whether this store is the one the steps apart give.
                // (A check that failed fails the run as any read of the source would: memory, a
                // damaged page; the work is kept, and the same command resumes and checks again.)
                let outcome = try fusionCheck.wait()
                if outcome.apart {
                    db.close()
                    return .apart(note: outcome.note)
                }
                if !run.notes.contains(outcome.note) { run.notes.append(outcome.note) }
            }
            if try options.beforeValidation != nil || ValidateStage.usesSecondConnection(db, tuning: options.tuning) { try held?.release() }
            try options.beforeValidation?(db)
            try ValidateStage(context: context, associationsKept: execution.associationsKept, sourceCounts: sourceCounts).run()
            try db.execute(inOneTransaction: step.destinationLayout.uniqueIndexSQL)
            // A small result's bytes are final (a finalize-stage carry aside): its writing
            // out starts now, beside the bookkeeping left, so the install's fsync waits for
            // less. (A large one's fsync is its writing out, whenever it starts.)
            if step.index == plan.steps.count - 1, withinOneChunk { Platform.startWriteback(output) }
            try RejectFile(destination: plan.destinationPath).export(step: step.index, from: db)
            // Last, once all of it passed: what lets the next step read this store, or the run install it.
            try ValidationProof.record(step: step.index, run: run.identity, schema: step.index == plan.steps.count - 1 ? "work" : "main", in: db)
            run.validatedHere.insert(step.index)
        } catch let failure as RowFailure {
            throw rowFailed(failure, step: step)
        } catch let error as MigrationError {
            if case .tooManyRejects = error {
                // The rows that stopped the run are what the user needs to see.
                try? RejectFile(destination: plan.destinationPath).export(step: step.index, from: db)
            }
            throw error
        }
        try held?.release()
        try db.execute("DETACH DATABASE work")
        run.finished += context.counters
        run.context = nil
        execution.redone = redone
        return .built(execution)
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
                                  mapping: checkpoint.mappingName,
                                  done: position.done, total: position.total)
        event.redone = redone
        return event
    }

    private func createOutput(_ output: String, area: WorkArea, layout: any StoreLayout, journalOnDisk: Bool, indexes: Bool) throws -> Database {
        WorkArea.remove(store: output)
        options.carriedFiles?.placeWork(at: area.work)
        WorkArea.prepareForReuse(store: area.work)
        do {
            // The empty store and work database the statements would make, written whole
            // (`EmptyStoreImage`): a file created as before, without a statement run on it.
            try EmptyStoreImage.of(tableSQL: layout.tableSQL + (indexes ? layout.plainIndexSQL : [])).write(store: output, work: area.work)
            let db = try Database(path: output, mode: .readWrite)
            try configure(db, area: area, journalOnDisk: journalOnDisk)
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
    /// killed mid-commit. Page caches are fixed (`PageCache`) so memory stays flat whatever
    /// the store's size.
    ///
    /// The journal is truncated at each commit rather than deleted: as atomic (a kill
    /// mid-commit leaves a hot journal either way, an empty one is no journal to SQLite),
    /// but a small store's dozen commits no longer create and delete a file each, which
    /// cost more than the rows on a file system that allocates inodes slowly. The empty
    /// journals go with the work files (`WorkArea.remove`).
    ///
    /// `journalOnDisk` false: the files are read by no rerun (a step within one chunk of a
    /// run with no checkpoint on disk; killed, the run starts over from files it makes
    /// anew), so the journals stay in memory: a transaction still rolls back whole in this
    /// process, and a small store's run makes and removes two files fewer. The checkpoint
    /// a stop writes (`RunState.flush`) follows a commit or a rollback in this process; a
    /// failure writes none into such files (`RunState.journalsInMemory`).
    private func configure(_ db: Database, area: WorkArea, journalOnDisk: Bool = true) throws {
        let journal = journalOnDisk ? "TRUNCATE" : "MEMORY"
        try db.execute("PRAGMA journal_mode = \(journal); PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; " + SorterThreads.pragma + "; " + PageCache.pragmas("main"))
        try db.execute("ATTACH DATABASE \(SQLValue.text(area.work).sqlLiteral) AS work")
        try db.execute("PRAGMA work.journal_mode = \(journal); PRAGMA work.synchronous = OFF; " + PageCache.pragmas("work"))
        // Core Data's derived-attribute triggers call these: a write once they exist must not fail.
        try CoreDataDerivedCount.registerFunctions(on: db)
    }

    private func openIntermediate(_ path: String) throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else {
            throw MigrationError.badCheckpoint(path: checkpointFile.path, reason: "the store \(path) an earlier step wrote is missing")
        }
        return try Database(path: path, mode: .readOnly)
    }

    /// SQLite's errors say what failed; this says which store and what it means for the user.
    private func describe(_ error: Error, source: String) -> Error {
        if let failure = error as? Zstd.Failure, failure.isOutOfMemory {
            return MigrationError.outOfMemory(what: "in zstd, writing the checkpoint or rejects of \(plan.destinationPath) (\(failure.message))")
        }
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
}
