import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression
import ETL

/// Keys and links worked out ahead on a second connection (`AheadWork`) give the store the
/// run's connection gives alone; a statement that fails there is run by the run's
/// connection; a run stopped while that work goes on resumes to the same store.
final class AheadWorkTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    /// The runs' hooks and range size (`run` sets the small-store threshold).
    var tuning = EngineTuning()

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 2000, seed: 13, to: source)
    }

    override func tearDown() {
        folder = nil
    }

    /// The books pipeline into `name`: with work ahead when `ahead` (every store counts as
    /// large), else without (every store counts as small). Returns the summary and what
    /// the run copied from the work done ahead (heard by `events`).
    func run(into name: String, ahead: Bool, stopWhen stop: (@Sendable (ProgressEvent) -> Bool)? = nil,
             cancellation: Cancellation = Cancellation(), events: EngineEvents = EngineEvents()) throws
        -> (summary: RunSummary, copied: (keys: Int, links: Int, rangesHelped: Int)) {
        var migration = booksMigration(source: source, destination: folder.path(name), chunkSize: 50, workers: 2)
        migration.options.fuseSteps = false  // (the first step's work ahead: its Book_users, its Author ↔ Book links)
        migration.options.tuning = tuning
        migration.options.tuning.smallStoreBytes = ahead ? 0 : .max
        migration.options.tuning.observe = events.observe
        migration.cancellation = cancellation
        let summary = try migration.run { event in
            if stop?(event) ?? false { cancellation.cancel() }
        }
        return (summary, (events.keysCopiedAhead, events.linksCopiedAhead, events.rangesHelped))
    }

    func assertSameRun(_ a: RunSummary, _ b: RunSummary, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.mappings.map(\.read), b.mappings.map(\.read), file: file, line: line)
        XCTAssertEqual(a.mappings.map(\.written), b.mappings.map(\.written), file: file, line: line)
        XCTAssertEqual(a.mappings.map(\.related), b.mappings.map(\.related), file: file, line: line)
        XCTAssertEqual(a.mappings.map(\.filtered), b.mappings.map(\.filtered), file: file, line: line)
    }

    func testKeysAndLinksWorkedOutAheadGiveTheSameStore() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        XCTAssertEqual(alone.copied.keys, 0)
        let ahead = try run(into: "ahead.sqlite", ahead: true)
        // The Authors' keys (a uniqueBy mapping) and the Author ↔ Book links of step 1.
        XCTAssertEqual(ahead.copied.keys, 1)
        XCTAssertEqual(ahead.copied.links, 1)
        try assertSameStore(folder.path("ahead.sqlite"), folder.path("alone.sqlite"))
        assertSameRun(ahead.summary, alone.summary)
        XCTAssertEqual(try folder.files(), ["ahead.sqlite", "alone.sqlite", "v1.sqlite"], "the files of the work ahead are removed")
        // The links' index, built once they are in, holds the table's rows.
        let db = try Database(path: folder.path("ahead.sqlite"), mode: .readOnly)
        defer { db.close() }
        XCTAssertEqual(try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Author_books'"),
                       [[.text("Author_books_target_index")]])
        XCTAssertEqual(try db.rows("PRAGMA integrity_check"), [[.text("ok")]])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Author_books INDEXED BY Author_books_target_index WHERE target_id > 0"),
                       try db.scalarInt("SELECT count(*) FROM Author_books"))
    }

    /// Core Data's join tables have rowids: links worked out ahead, unsorted, are inserted
    /// in the statement's order, so each pair gets the rowid the statement gives it.
    func testLinksWorkedOutAheadGetTheStatementsRowids() throws {
        try BooksSample.write(rows: 1500, seed: 21, to: folder.path("cd-v1.sqlite"), layout: .coredata)
        // Step 1 alone (step 2 copies the join table again, in its own order).
        let data = try Data(contentsOf: URL(fileURLWithPath: repositoryPath("pipelines/books-coredata.json")))
        var pipeline = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        pipeline["models"] = repositoryPath("pipelines/models/Books.xcdatamodeld")
        pipeline["destination"] = ["store": "unused.sqlite", "layout": "coredata", "version": "books-v2"]
        pipeline["steps"] = [try XCTUnwrap((pipeline["steps"] as? [Any])?.first)]
        let path = folder.path("step1.json")
        try JSONSerialization.data(withJSONObject: pipeline).write(to: URL(fileURLWithPath: path))
        var copied: [Int] = []
        for (name, ahead) in [("alone.sqlite", false), ("ahead.sqlite", true)] {
            let events = EngineEvents()
            var migration = booksMigration(source: folder.path("cd-v1.sqlite"), destination: folder.path(name), chunkSize: 50, workers: 2,
                                           pipeline: path, fuseSteps: false)
            migration.options.tuning.smallStoreBytes = ahead ? 0 : .max
            migration.options.tuning.observe = events.observe
            _ = try migration.run()
            copied.append(events.linksCopiedAhead)
        }
        XCTAssertEqual(copied, [0, 1], "the Author ↔ Book links of step 1 worked out ahead")
        func joinTables(_ name: String) throws -> [String: [[SQLValue]]] {
            let db = try Database(path: folder.path(name), mode: .readOnly)
            defer { db.close() }
            var tables: [String: [[SQLValue]]] = [:]
            for table in try db.tables() where table.name.hasPrefix("Z_") && table.name != "Z_PRIMARYKEY" && table.name != "Z_METADATA"
                && table.name != "Z_MODELCACHE" {
                tables[table.name] = try db.rows("SELECT rowid, * FROM \(Database.quote(table.name)) ORDER BY rowid")
            }
            return tables
        }
        let alone = try joinTables("alone.sqlite"), ahead = try joinTables("ahead.sqlite")
        XCTAssertFalse(alone.isEmpty)
        XCTAssertGreaterThan(alone.values.map(\.count).max() ?? 0, 1000)
        XCTAssertEqual(ahead, alone)
    }

    func testAStatementThatFailsAheadIsRunByTheRunsConnection() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        // The keys fail: the run fills them itself, and the links made from them are not
        // used. Only the links fail: the keys are copied, the links statement runs as it is.
        let cases: [(name: String, failing: @Sendable (String) -> Bool, keys: Int)] = [
            ("no-keys.sqlite", { $0.contains("INTO work.unique_key (\"mapping\", \"key\"") }, 0),
            ("no-links.sqlite", { $0.hasPrefix("INSERT OR IGNORE") }, 1),
        ]
        for (name, failing, keys) in cases {
            tuning.beforeAheadStatement = { sql in
                if failing(sql) { throw StoreError(path: "ahead", code: 1, message: "injected") }
            }
            let failed = try run(into: name, ahead: true)
            XCTAssertEqual(failed.copied.keys, keys, name)
            XCTAssertEqual(failed.copied.links, 0, name)
            try assertSameStore(folder.path(name), folder.path("alone.sqlite"))
            assertSameRun(failed.summary, alone.summary)
        }
    }

    /// While the run's connection would wait for links worked out ahead, it builds the
    /// indexes of the tables no statement left in the step writes: here Book_users', whose
    /// statement ran just before.
    func testTheRunBuildsFinishedTablesIndexesWhileLinksAreWorkedOutAhead() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        let building = folder.path("ahead.sqlite") + ".etl-step1.tmp"
        let seen = Recorded<[String]>()
        tuning.beforeAheadStatement = { sql in
            guard sql.hasPrefix("INSERT OR IGNORE") else { return }
            // The links are held back until the run's connection has built the index (or 10 s passed).
            for _ in 0..<200 {
                let indexes = try Database(path: building, mode: .readOnly)
                    .rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                    .map { row -> String in if case .text(let name) = row[0] { return name } else { return "" } }
                if !indexes.isEmpty { seen.list.append(indexes); return }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let ahead = try run(into: "ahead.sqlite", ahead: true)
        XCTAssertEqual(seen.list, [["Book_users_target_index"]], "built before the Author ↔ Book links, and only that one")
        XCTAssertEqual(ahead.copied.links, 1)
        try assertSameStore(folder.path("ahead.sqlite"), folder.path("alone.sqlite"))
        assertSameRun(ahead.summary, alone.summary)
    }

    func testAnIndexsTableIsReadFromItsStatement() {
        let table = IndexStatement.table
        XCTAssertEqual(table(#"CREATE INDEX "Book_users_target_index" ON "Book_users"("target_id")"#), "Book_users")
        XCTAssertEqual(table("CREATE INDEX IF NOT EXISTS Z_Book_author ON ZBOOK (ZAUTHOR)"), "ZBOOK")
        XCTAssertEqual(table(#"create index if not exists main."a""b" on [my table] (x, y)"#), "my table")
        XCTAssertEqual(table("CREATE INDEX `i` ON `t``u`(x)"), "t`u")
        XCTAssertEqual(table(#"CREATE INDEX "i" ON "Z""ONE" ("x")"#), #"Z"ONE"#)
        XCTAssertNil(table("CREATE UNIQUE INDEX i ON t(x)"))
        XCTAssertNil(table("CREATE TABLE t (x)"))
        XCTAssertNil(table("CREATE INDEX i ON t"))
        XCTAssertNil(table(#"CREATE INDEX "i ON t(x)"#))
    }

    func testStoppedWhileWorkIsAheadResumesToTheSameStore() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        // Stopped while the keys are worked out (Books being created), then while the links
        // are (Authors created); each resumed run starts the work ahead again.
        let stops: [@Sendable (ProgressEvent) -> Bool] = [
            { $0.step == 1 && $0.stage == .create && $0.mapping == "Books" && $0.kind == .advanced },
            { $0.step == 1 && $0.stage == .relate && $0.mapping == "Books" && $0.kind == .started },
        ]
        for stop in stops {
            XCTAssertThrowsError(try run(into: "v3.sqlite", ahead: true, stopWhen: stop)) { error in
                guard case MigrationError.interrupted = error else { return XCTFail("expected interrupted, got \(error)") }
            }
        }
        let resumed = try run(into: "v3.sqlite", ahead: true)
        try assertSameStore(folder.path("v3.sqlite"), folder.path("alone.sqlite"))
        XCTAssertEqual(resumed.summary.mappings.map(\.written), alone.summary.mappings.map(\.written))
        XCTAssertEqual(try folder.files(), ["alone.sqlite", "v1.sqlite", "v3.sqlite"], "no work file is left")
    }

    // MARK: Ranges of pairs the run's connection takes

    func testRangesCoverEveryKeyOnce() {
        for (low, high, pieces) in [(Int64(1), Int64(2000), 20), (-7, 993, 11), (5, 5, 1), (1, 99, 1), (1, 1_000_000, 64),
                                    (Int64.max - 999, Int64.max, 10), (Int64.min, Int64.min + 1999, 20)] {
            let ranges = AheadWork.ranges(low: low, high: high, rowsPerRange: 100)
            XCTAssertEqual(ranges.first?.lowerBound, low)
            XCTAssertEqual(ranges.last?.upperBound, high)
            for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(b.lowerBound, a.upperBound + 1, "\(ranges)") }
            XCTAssertEqual(ranges.count, pieces, "\(low)...\(high)")
        }
        // A span wider than Int64 is one range.
        XCTAssertEqual(AheadWork.ranges(low: .min, high: .max, rowsPerRange: 100), [Int64.min...Int64.max])
    }

    /// Waits (up to 10 s) until `done` says so.
    static func wait(until done: () -> Bool) {
        for _ in 0..<200 where !done() { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// The second connection works out one range of the Author ↔ Book pairs, then waits:
    /// the run's connection, reaching the statement, takes the others, and inserts both
    /// tables' pairs.
    func testTheRunsConnectionTakesTheRangesOfPairsLeft() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        tuning.aheadRowsPerRange = 100
        let ranges = AheadWork.ranges(low: 1, high: 2000, rowsPerRange: 100).count
        XCTAssertEqual(ranges, 20)
        let calls = SharedCount()
        let events = EngineEvents()
        tuning.beforeAheadStatement = { sql in
            guard sql.hasPrefix("INSERT OR IGNORE"), calls.next() > 1 else { return }
            Self.wait { events.rangesHelped > 0 }
        }
        let helped = try run(into: "helped.sqlite", ahead: true, events: events)
        XCTAssertEqual(helped.copied.rangesHelped, ranges - 1, "the run's connection took every range but the first")
        XCTAssertEqual(helped.copied.links, 1)
        try assertSameStore(folder.path("helped.sqlite"), folder.path("alone.sqlite"))
        assertSameRun(helped.summary, alone.summary)
    }

    /// Ranges of 100 books; the second connection waits before its first range until the run's
    /// connection reached its third, before which `third` runs. Returns the count of ranges
    /// the run's connection came to.
    @discardableResult
    func holdLinksWhileTheRunTakesRanges(beforeThird third: @escaping @Sendable () throws -> Void) -> SharedCount {
        tuning.aheadRowsPerRange = 100
        let helping = SharedCount()
        tuning.beforeAheadStatement = { sql in
            guard sql.hasPrefix("INSERT OR IGNORE") else { return }
            Self.wait { helping.value >= 3 }
        }
        tuning.beforeHelpedRange = { taken in
            _ = helping.next()
            if taken == 2 { try third() }
        }
        return helping
    }

    /// A range that fails on the run's connection: the pairs worked out are not used, and
    /// the statement runs as it is.
    func testARangeThatFailsOnTheRunsConnectionLeavesTheStatementToIt() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        holdLinksWhileTheRunTakesRanges(beforeThird: { throw StoreError(path: "helped", code: 13, message: "injected: database or disk is full") })
        let failed = try run(into: "failed.sqlite", ahead: true)
        XCTAssertEqual(failed.copied.links, 0)
        XCTAssertEqual(failed.copied.rangesHelped, 0)
        try assertSameStore(folder.path("failed.sqlite"), folder.path("alone.sqlite"))
        assertSameRun(failed.summary, alone.summary)
    }

    /// Stopped while the run's connection works out ranges of pairs: the resumed run gives
    /// the same store.
    func testStoppedWhileTheRunsConnectionTakesRangesResumesToTheSameStore() throws {
        let alone = try run(into: "alone.sqlite", ahead: false)
        let cancellation = Cancellation()
        let helping = holdLinksWhileTheRunTakesRanges(beforeThird: { cancellation.cancel() })
        XCTAssertThrowsError(try run(into: "v2.sqlite", ahead: true, cancellation: cancellation)) { error in
            guard case MigrationError.interrupted = error else { return XCTFail("expected interrupted, got \(error)") }
        }
        XCTAssertGreaterThanOrEqual(helping.value, 3, "stopped while the run's connection took ranges")
        tuning.beforeAheadStatement = nil
        tuning.beforeHelpedRange = nil
        let resumed = try run(into: "v2.sqlite", ahead: true)
        try assertSameStore(folder.path("v2.sqlite"), folder.path("alone.sqlite"))
        assertSameRun(resumed.summary, alone.summary)
        XCTAssertEqual(try folder.files(), ["alone.sqlite", "v1.sqlite", "v2.sqlite"], "no work file is left")
    }
}

/// A count several threads add to.
final class SharedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    /// Adds one; returns the new count.
    func next() -> Int { lock.withLock { count += 1; return count } }
}
