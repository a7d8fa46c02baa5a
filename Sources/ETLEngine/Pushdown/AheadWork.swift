import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// The statements of a pushed-down step that read nothing the step writes, worked out on
/// a second connection and thread (the second core) while the run's connection creates
/// the rows before them:
///
/// - a uniqueBy mapping's keys (`PushdownPlan.Create.fillKeys`: a `GROUP BY` of every source
///   row, its costliest statement), when no other mapping writes its table, so that the
///   first key its rows get is known from the start;
/// - then the links of a join table between rows found by source key or uniqueBy key
///   (`PushdownPlan.AheadLinks`: Author_books of the books step, a lookup of each book's
///   author), when no other statement of the step writes that table.
///
/// They are the run's own statements with the run's own parameters, written into files of
/// their own beside the work database (`WorkArea.aheadFiles`): the keys first, then the
/// links. When the run's connection reaches such a statement it copies the rows in,
/// inside the transaction and under the checkpoint of the statement they stand for, in
/// the order the statement writes them: the same rows, keys and counts. A statement that
/// failed ahead (a value the row-by-row engine rejects, say) or was stopped is run by the
/// run's connection as if nothing had been done ahead, and fails or goes on as it always
/// did. A kill loses nothing: the files are scratch; a resumed run works out again what is
/// still to do, and they go with the other work files.
///
/// The links are worked out without their `ORDER BY` (`AheadLinks.pairs`), into a table
/// with no type and no key: the run's connection sorts them as it inserts them. Its
/// sorter has helper threads (`SorterThreads`), which find the second core free by then;
/// sorted here the pairs would be sorted on one core, and then copied once more.
///
/// They are worked out a range of the owner rows' keys at a time (`AheadLinks.Ranges`),
/// taken in turn from one list: when the run's connection reaches the statement before
/// they are all done, rather than wait it takes ranges of that list too (`help`), into a
/// table of its own. Each range is worked out once, by one of the two; the run's
/// connection uses the pairs only when every range was, and inserts both tables' pairs in
/// one sort. So neither connection waits for the other: the links are ready as soon as
/// the two together can make them.
///
/// The run's connection opens each file only once it is complete and closed, so the two
/// connections never wait for each other's locks. A `SmallStore` gets none of this: a
/// second connection costs more than its work.
final class AheadWork: @unchecked Sendable {
    private struct Keys {
        let mapping: MappingID
        let fill: SQLInsert
        /// The first key the mapping's rows get, bound to `fill` as ?1.
        let first: Int64
    }

    private struct Links {
        let relate: PushdownPlan.Relate
        /// The table of the pairs in the links file.
        let pairs: String
    }

    /// The run's thresholds, hooks and observer.
    private let tuning: EngineTuning

    private let files: (keys: String, links: String)
    private let lock = NSLock()
    private var keysDone: [MappingID: Int64] = [:]
    /// The relate statements whose pairs are worked out, and the tables that hold them.
    private var linksDone: [PushdownPlan.RelateStatement: String] = [:]
    /// The statements a range of whose pairs failed on the run's connection.
    private var helpFailed: Set<PushdownPlan.RelateStatement> = []
    /// The keys the run's connection copied: the only ones links worked out ahead agree with.
    private var keysUsed: Set<MappingID> = []
    /// The key ranges of the pairs being worked out that neither connection took yet.
    private var rangesLeft: (statement: PushdownPlan.RelateStatement, ranges: ArraySlice<ClosedRange<Int64>>)?
    private var stopped = false
    private var current: Database?
    private let keysReadySignal = DispatchSemaphore(value: 0)
    private let linksReadySignal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the work ahead for what remains of the step, or returns nil when nothing of
    /// it can be worked out ahead, or the source is a `SmallStore`.
    /// - Parameter keptRelates: the relate statements of the plan the step ends with when
    ///   every policy mapping's rows keep their source keys (decided once the rows exist,
    ///   `PushdownStage.keptSourceKeys`): worked out too, and used if the step ends so (the
    ///   run's connection uses only statements it runs itself, word for word).
    static func start(_ context: StepContext, plan: PushdownPlan, keptRelates: [MappingID: [PushdownPlan.Relate]]? = nil) throws -> AheadWork? {
        guard !(try SmallStore.holds(context.source, below: context.tuning.smallStoreBytes)) else { return nil }
        let step = context.plan
        var keys: [Keys] = []
        for create in plan.creates where create.kind == .unique && !context.isDone(.create, mapping: create.mapping) {
            let table = step.destinationLayout.table(of: step.mappings[create.mapping].destinationEntity).name
            guard step.writersByTable[table] == 1, let fill = create.fillKeys else { continue }
            keys.append(Keys(mapping: create.mapping, fill: fill, first: context.nextKey[table] ?? 1))
        }
        let keyed = Set(keys.map(\.mapping))
        var links: [Links] = []
        for relates in [plan.relates] + [keptRelates].compactMap({ $0 }) {
            let statements = relates.values.flatMap { $0 }
            for index in step.mappingIDs where !context.isDone(.relate, mapping: index) {
                for relate in relates[index] ?? [] where !links.contains(where: { $0.relate.statement == relate.statement }) {
                    guard worksAhead(relate, among: statements, keyed: keyed) else { continue }
                    links.append(Links(relate: relate, pairs: "pairs\(links.count + 1)"))
                }
            }
        }
        guard !keys.isEmpty else { return nil }
        let work = AheadWork(files: WorkArea.aheadFiles(ofWork: context.workPath), tuning: context.tuning)
        let source = context.sourcePath
        let functions = context.policies.functions
        let cancellation = context.cancellation
        let items = (keys: keys, links: links)
        Thread.detachNewThread {
            work.run(keys: items.keys, links: items.links, source: source, functions: functions) { cancellation?.isCancelled ?? false }
        }
        return work
    }

    /// Whether `relate`'s links are worked out ahead: they read only the source and the keys
    /// of mappings in `keyed` (those worked out ahead), and `relate` is the one statement of
    /// the step (`statements`) writing their join table. Decided on the statements' parts:
    /// no SQL text is read.
    static func worksAhead(_ relate: PushdownPlan.Relate, among statements: [PushdownPlan.Relate], keyed: Set<MappingID>) -> Bool {
        guard let ahead = relate.ahead, ahead.keysOf.allSatisfy(keyed.contains) else { return false }
        return statements.filter { $0.statement.joinTable == ahead.table }.count == 1
    }

    private init(files: (keys: String, links: String), tuning: EngineTuning) {
        self.files = files
        self.tuning = tuning
    }

    // MARK: The run's connection

    /// Waits for the keys worked out ahead. True when mapping `mapping`'s are there, made
    /// from `first` on: then the file is attached to `db` as `ahead`, for `copyKeys`.
    func attachKeys(of mapping: MappingID, first: Int64, to db: Database) throws -> Bool {
        keysReadySignal.wait()
        keysReadySignal.signal()
        guard lock.withLock({ keysDone[mapping] == first }) else { return false }
        try attach(files.keys, to: db)
        lock.withLock { _ = keysUsed.insert(mapping) }
        tuning.observe?(.keysCopiedAhead)
        return true
    }

    /// Copies scope `scope`'s keys from the attached file into the work database, in the
    /// order `fillKeys` writes them.
    static func copyKeys(scope: TargetID) -> String {
        WorkDatabase.addUniqueKeys(scope: scope, key: "key", destination: "destination", source: "source", rows: "rows",
                                   of: SQLSelect([], from: SQLTable(schema: "ahead", name: "unique_key"), where: ["mapping = \(scope.index)"],
                                                 orderBy: ["key"])).sql
    }

    /// Waits for the links worked out ahead. When `relate`'s are there, from keys the run
    /// copied, attaches the file to `db` as `ahead` and returns the table of its pairs, for
    /// `copyLinks`.
    func attachLinks(for relate: PushdownPlan.Relate, to db: Database) throws -> String? {
        guard let ahead = relate.ahead else { return nil }
        linksReadySignal.wait()
        linksReadySignal.signal()
        let pairs = lock.withLock {
            ahead.keysOf.allSatisfy(keysUsed.contains) && !helpFailed.contains(relate.statement) ? linksDone[relate.statement] : nil
        }
        guard let pairs else { return nil }
        try attach(files.links, to: db)
        tuning.observe?(.linksCopiedAhead)
        return pairs
    }

    /// Whether the links are worked out (or will never be): `attachLinks` returns at once.
    var linksReady: Bool {
        guard linksReadySignal.wait(timeout: .now()) == .success else { return false }
        linksReadySignal.signal()
        return true
    }

    /// Inserts the pairs worked out ahead (table `pairs` of the attached file, and the
    /// run's own `helped` ones) as the statement would have: the same `INSERT OR IGNORE`,
    /// the same `ORDER BY 1, 2`, so the same rows in the same order (the rowids of a table
    /// that has them too). The pairs' columns have no type, so a value reads back as the
    /// statement's `SELECT` gave it.
    static func copyLinks(_ ahead: PushdownPlan.AheadLinks, from pairs: String, helped: String?, on db: Database) throws {
        let tables = ["ahead.\(Database.quote(pairs))"] + [helped].compactMap { $0 }
        try db.run(ahead.statement.head + "SELECT * FROM (" + tables.map { "SELECT * FROM \($0)" }.joined(separator: " UNION ALL ")
                   + ") ORDER BY 1, 2")
    }

    /// The run's connection, at statement `relate` while its pairs are still worked out
    /// ahead: works out the ranges of them not yet taken, into a table of its own (returned;
    /// nil when it took none). Its `work.unique_key` holds the keys the second connection
    /// read (`keysUsed`). A range that fails here (a value the statement rejects) drops the
    /// table and returns nil: the pairs worked out ahead then lack it, so the statement runs
    /// as it is, and fails or goes on as it always did.
    func help(with relate: PushdownPlan.Relate, on db: Database) throws -> String? {
        guard let ranges = relate.ahead?.ranges,
              lock.withLock({ relate.ahead!.keysOf.allSatisfy(keysUsed.contains) && rangesLeft?.statement == relate.statement }) else { return nil }
        let table = "temp.etl_pairs_helped"
        var taken = 0
        do {
            while true {
                try tuning.beforeHelpedRange?(taken)
                guard let range = takeRange(of: relate.statement) else { break }
                if taken == 0 { try db.execute("DROP TABLE IF EXISTS \(table); CREATE TABLE \(table) (first, second)") }
                taken += 1
                try db.run("INSERT INTO \(table) " + ranges.pairs.sql, [.integer(range.lowerBound), .integer(range.upperBound)])
            }
        } catch {
            try? Self.dropHelped(table, on: db)
            // Stopped (SIGINT, SIGTERM): the run stops; the ranges taken are nobody's now.
            if let error = error as? StoreError, error.code & 0xff == SQLiteCode.interrupt { throw error }
            lock.withLock { _ = helpFailed.insert(relate.statement) }
            return nil
        }
        if taken > 0 { tuning.observe?(.rangesHelped(taken)) }
        return taken > 0 ? table : nil
    }

    static func dropHelped(_ table: String?, on db: Database) throws {
        if let table { try db.execute("DROP TABLE IF EXISTS \(table)") }
    }

    /// The next key range of `statement`'s pairs that no connection took, taken.
    private func takeRange(of statement: PushdownPlan.RelateStatement) -> ClosedRange<Int64>? {
        lock.withLock {
            guard !stopped, rangesLeft?.statement == statement, let range = rangesLeft?.ranges.popFirst() else { return nil }
            return range
        }
    }

    /// The keys from `low` to `high`, in at most 64 ranges of about `rowsPerRange` keys
    /// (`EngineTuning.aheadRowsPerRange`). The
    /// keys are the rowid: a range is a seek and a scan, however few rows it holds (a
    /// `count(*)` would read the whole table).
    static func ranges(low: Int64, high: Int64, rowsPerRange: Int64) -> [ClosedRange<Int64>] {
        let span = high.subtractingReportingOverflow(low)
        guard !span.overflow else { return [low...high] }
        let pieces = max(1, min(64, (span.partialValue / max(1, rowsPerRange)).addingReportingOverflow(1).partialValue))
        guard pieces > 1 else { return [low...high] }
        let width = span.partialValue / pieces + 1
        var ranges: [ClosedRange<Int64>] = []
        var start = low
        while high - start >= width {
            ranges.append(start...(start + width - 1))
            start += width
        }
        return ranges + [start...high]
    }

    func detach(from db: Database) throws {
        try db.execute("DETACH DATABASE ahead")
    }

    /// Stops the work that is left, waits for its thread, and removes the files. The run's
    /// connection has detached them.
    func finish() {
        lock.withLock {
            stopped = true
            current?.interrupt()
        }
        finished.wait()
        finished.signal()
        for file in [files.keys, files.links] { WorkArea.remove(store: file) }
    }

    private func attach(_ file: String, to db: Database) throws {
        try db.execute("ATTACH DATABASE \(SQLValue.text(PushdownStage.readOnlyURI(file)).sqlLiteral) AS ahead")
        try db.execute(PageCache.pragmas("ahead"))
    }

    // MARK: The second connection

    private func run(keys: [Keys], links: [Links], source: String, functions: [String: ExpressionFunction],
                     cancelled: @escaping @Sendable () -> Bool) {
        defer {
            keysReadySignal.signal()
            linksReadySignal.signal()
            finished.signal()
        }
        let stop: @Sendable () -> Bool = { [self] in cancelled() || lock.withLock { stopped } }
        // The keys: the work database's own table in a file of its own, attached as `work`,
        // so that each `fillKeys` runs as it is.
        var done: [MappingID: Int64] = [:]
        connection(main: ":memory:", work: files.keys, source: source, functions: functions, stop: stop) { db in
            try db.execute(WorkDatabase.creation)
            for item in keys where !stop() {
                do {
                    let fill = item.fill.sql
                    try tuning.beforeAheadStatement?(fill)
                    try db.transaction { try db.run(fill, [.integer(item.first)]) }
                    done[item.mapping] = item.first
                } catch {
                    // Run again by the run's connection, which reports what is wrong.
                }
            }
        }
        lock.withLock { keysDone = done }
        keysReadySignal.signal()
        // The links: each statement's pairs in a table of a file of their own that is `main`
        // here; the keys read-only.
        var linked: [PushdownPlan.RelateStatement: String] = [:]
        let ready = links.filter { $0.relate.ahead!.keysOf.allSatisfy { done[$0] != nil } }
        guard !ready.isEmpty else { return }
        connection(main: files.links, work: PushdownStage.readOnlyURI(files.keys), source: source, functions: functions, stop: stop) { db in
            for item in ready where !stop() {
                do {
                    let table = "main.\(Database.quote(item.pairs))"
                    try db.execute("CREATE TABLE \(table) (first, second)")
                    if let ranges = item.relate.ahead!.ranges {
                        let q = Database.quote
                        // (No rows, no ranges: no pairs.)
                        let row = try db.rows("SELECT min(\(q(ranges.key))), max(\(q(ranges.key))) FROM src.\(q(ranges.table))")[0]
                        if case .integer(let low) = row[0], case .integer(let high) = row[1] {
                            lock.withLock { rangesLeft = (item.relate.statement, ArraySlice(Self.ranges(low: low, high: high, rowsPerRange: tuning.aheadRowsPerRange))) }
                        }
                        defer { lock.withLock { rangesLeft = nil } }
                        while true {
                            try tuning.beforeAheadStatement?(item.relate.statement.sql)
                            guard let range = takeRange(of: item.relate.statement) else { break }
                            try db.transaction {
                                try db.run("INSERT INTO \(table) " + ranges.pairs.sql, [.integer(range.lowerBound), .integer(range.upperBound)])
                            }
                        }
                        // Stopped (finish): ranges may be left that nobody took.
                        guard !stop() else { continue }
                    } else {
                        try tuning.beforeAheadStatement?(item.relate.statement.sql)
                        try db.transaction { try db.run("INSERT INTO \(table) " + item.relate.ahead!.pairs.sql) }
                    }
                    linked[item.relate.statement] = item.pairs
                } catch {
                    // Run by the run's connection instead.
                }
            }
        }
        lock.withLock { linksDone = linked }
    }

    /// Opens a connection with `main` and `work` (created when missing) and the source
    /// attached read-only, the run's SQL functions registered, and runs `body` on it. It
    /// stops at once when `stop` says so (`finish`, or the run's cancellation).
    private func connection(main: String, work: String, source: String, functions: [String: ExpressionFunction],
                            stop: @escaping @Sendable () -> Bool, _ body: (Database) throws -> Void) {
        do {
            if main != ":memory:" { WorkArea.remove(store: main) }
            if !work.hasPrefix("file:") { WorkArea.remove(store: work) }
            let db = try Database(path: main, mode: .create)
            defer {
                lock.withLock { current = nil }
                db.close()
            }
            lock.withLock { current = db }
            guard !stop() else { return }
            db.onProgress(every: 20_000, stop)
            try SQLTranslator.registerValueFunction(on: db)
            try SQLTranslator.register(functions, on: db)
            try db.execute("ATTACH DATABASE \(SQLValue.text(work).sqlLiteral) AS work")
            try PushdownStage.attachSource(source, to: db)
            // Scratch files: a failed statement is rolled back from memory, nothing is synced.
            try db.execute("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA work.journal_mode = MEMORY; "
                           + "PRAGMA work.synchronous = OFF; " + PageCache.pragmas("main", "work", "src"))
            try body(db)
        } catch {
            // Nothing worked out ahead: the run's connection does it all.
        }
    }
}
