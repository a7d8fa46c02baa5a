import Foundation
import ETLStore
import ETLModel
import ETLPipeline

/// Options of one run, beyond the pipeline file.
public struct RunOptions: Sendable {
    public var chunkSize: Int
    public var workers: Int
    public var replace: ReplacePolicy

    public init(chunkSize: Int, workers: Int, replace: ReplacePolicy = .refuse) {
        self.chunkSize = chunkSize
        self.workers = workers
        self.replace = replace
    }
}

/// Runs a plan: each step's stages in order, then the atomic replacement.
///
/// The source is only ever opened read-only. Until the final rename, everything is
/// written to files beside the destination (see `WorkArea`); on failure they are removed
/// and the destination path is untouched.
public struct Engine {
    public let plan: Plan
    public let options: RunOptions

    public init(plan: Plan, options: RunOptions) {
        self.plan = plan
        self.options = options
    }

    public func run(progress: @escaping (ProgressEvent) -> Void = { _ in }) throws -> RunSummary {
        let started = Date()
        let source = plan.sourcePath
        let destination = plan.destinationPath
        let area = WorkArea(destination: destination)
        try checkDestination(destination, source: source)
        let sourceDatabase = try openSource(source)
        try checkSourceSchema(sourceDatabase)

        area.removeAll(stepCount: plan.steps.count)
        var counters: [MappingCounters] = []
        var backup: String?
        do {
            var input = sourceDatabase
            var inputPath = source
            for (index, step) in plan.steps.enumerated() {
                let output = area.output(ofStep: index, stepCount: plan.steps.count)
                counters += try runStep(step, input: input, inputPath: inputPath, output: output, area: area, progress: progress)
                if index > 0 { WorkArea.remove(store: inputPath) }
                input = try Database(path: output, mode: .readOnly)
                inputPath = output
            }
            let last = plan.steps.count
            let name = plan.steps.last!.name
            progress(ProgressEvent(kind: .started, step: last, stepCount: last, stepName: name, stage: .finalize, done: 0, total: 1))
            backup = try Finalizer.install(area.temporaryDestination, at: destination, backup: area.backup, policy: options.replace)
            progress(ProgressEvent(kind: .finished, step: last, stepCount: last, stepName: name, stage: .finalize, done: 1, total: 1))
        } catch {
            area.removeAll(stepCount: plan.steps.count)
            throw describe(error, source: source)
        }
        area.removeAll(stepCount: plan.steps.count)
        return RunSummary(source: source, destination: destination, backup: backup, mappings: counters,
                          seconds: Date().timeIntervalSince(started))
    }

    private func runStep(_ step: StepPlan, input: Database, inputPath: String, output: String, area: WorkArea,
                         progress: @escaping (ProgressEvent) -> Void) throws -> [MappingCounters] {
        WorkArea.remove(store: output)
        WorkArea.remove(store: area.work)
        let db: Database
        do {
            db = try Database(path: output, mode: .create)
            // The file is private until the final rename, which is preceded by an fsync:
            // per-commit durability buys nothing here and costs a lot. Page caches are
            // fixed (4 MiB each) so memory stays flat whatever the store's size.
            try db.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -4096")
            try db.execute("ATTACH DATABASE \(SQLValue.text(area.work).sqlLiteral) AS work")
            try db.execute("PRAGMA work.synchronous = OFF; PRAGMA work.cache_size = -4096")
            try db.transaction {
                for sql in step.destinationLayout.schemaSQL() { try db.execute(sql) }
                try db.execute(WorkArea.schema)
            }
        } catch let error as StoreError {
            throw MigrationError.badDestination(path: output, reason: "cannot create the new store: \(error.message)")
        }
        let context = StepContext(plan: step, stepCount: plan.steps.count, source: input, sourcePath: inputPath,
                                  destination: db, workPath: area.work, chunkSize: options.chunkSize,
                                  workers: options.workers, report: progress)
        do {
            for index in step.mappings.indices {
                try CreateStage(context: context, index: index).run()
            }
            for index in step.mappings.indices {
                try RelateStage(context: context, index: index).run()
            }
            try step.destinationLayout.finish(db)
            try ValidateStage(context: context).run()
        } catch let failure as RowFailure {
            throw rowFailed(failure, step: step, context: context)
        }
        try db.execute("DETACH DATABASE work")
        return context.counters
    }

    /// SQLite's errors say what failed; this says which store and what it means for the user.
    private func describe(_ error: Error, source: String) -> Error {
        guard let error = error as? StoreError else { return error }
        if error.path == source {
            let meaning = error.code == SQLiteCode.corrupt || error.code == SQLiteCode.notADatabase
                ? "is damaged or truncated; nothing was written (\(error.message))" : error.description
            return MigrationError.badSource(path: source, reason: meaning)
        }
        switch error.code {
        case SQLiteCode.full:
            return MigrationError.badDestination(path: plan.destinationPath, reason: "the disk is full while writing \(error.path); free space and run again (nothing was replaced)")
        case SQLiteCode.ioError, SQLiteCode.cantOpen, SQLiteCode.readOnly:
            return MigrationError.badDestination(path: plan.destinationPath, reason: "cannot write \(error.path): \(error.message)")
        default:
            return error
        }
    }

    private func rowFailed(_ failure: RowFailure, step: StepPlan, context: StepContext) -> MigrationError {
        // The stage that failed is the last one that reported progress; find its mapping by expression.
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
        if URL(fileURLWithPath: destination).standardizedFileURL.resolvingSymlinksInPath()
            == URL(fileURLWithPath: source).standardizedFileURL.resolvingSymlinksInPath() {
            throw MigrationError.badDestination(path: destination, reason: "is the source store itself; the source is never modified, so write the result elsewhere")
        }
        if fm.fileExists(atPath: destination) && options.replace == .refuse {
            throw MigrationError.badDestination(path: destination, reason: "already exists. Pass --backup to keep it as \(destination).bak, or --force to replace it")
        }
    }

    private func openSource(_ path: String) throws -> Database {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MigrationError.badSource(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MigrationError.badSource(path: path, reason: "is a folder, not a store file") }
        do {
            let db = try Database(path: path, mode: .readOnly)
            try db.checkReadable()
            return db
        } catch let error as StoreError {
            let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let reason: String
            switch error.code {
            case SQLiteCode.notADatabase: reason = "is not a SQLite database (\(size) bytes)"
            case SQLiteCode.corrupt: reason = "is damaged or truncated (\(size) bytes): \(error.message)"
            default: reason = error.message
            }
            throw MigrationError.badSource(path: path, reason: reason)
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
            for attribute in layout.model.attributes(of: entity) {
                let column = layout.column(ofAttribute: attribute.name, entity: entity)
                guard info.column(named: column) != nil else {
                    throw MigrationError.badSource(path: path, reason: "table \(table.name) has no column \(column) for \(entity).\(attribute.name): is it a store of model \(layout.model.version)?")
                }
            }
        }
    }
}
