import Foundation
import XCTest
import ETLStore
import ETLEngine
import ETLExpression
import ETL
import ETLTestSupport

/// Every source store is hostile: damaged, truncated, lying in its header or its schema,
/// locked by another program, or with a view where a table should be. Whatever it is, a
/// run ends — in a result or an error that names the file — never in a crash or a hang,
/// and the file is left exactly as it was.
///
/// `scripts/fuzz-stores.sh` (`make fuzz-stores N=5000`) runs the same kinds of mutants by
/// the thousand against the `etl` binary.
final class HostileStoreTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    // MARK: SourceStore

    func testTheSourceConnectionIsHardened() throws {
        let store = folder.path("v1.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: store)
        let source = try SourceStore(path: store)
        if Database.canConfigure {
            XCTAssertEqual(source.database.flag(.defensive), true)
            XCTAssertEqual(source.database.flag(.views), false)
            XCTAssertEqual(source.database.flag(.loadExtension), false)
        }
        XCTAssertEqual(try source.database.scalarInt("PRAGMA trusted_schema"), 0)
        XCTAssertEqual(try source.database.scalarInt("PRAGMA cell_size_check"), 1)
        XCTAssertEqual(try source.database.scalarInt("PRAGMA mmap_size"), 0)
        XCTAssertEqual(source.database.busyTimeout, 5_000)
    }

    func testADamagedStoreIsRefusedNamingTheDamageUnlessTheCheckIsOff() throws {
        let store = folder.path("v1.sqlite")
        let damaged = folder.path("damaged.sqlite")
        let bytes = try writeDamagedBooksStore(original: store, damaged: damaged)

        assertMigrationError(try SourceStore(path: damaged), contains: [damaged, "is damaged or truncated", "quick_check", "Page"])
        let unchecked = try SourceStore(path: damaged, check: false)
        XCTAssertEqual(unchecked.path, damaged)
        assertRefusedAlike(booksMigration(source: damaged, destination: folder.path("out.sqlite")),
                           contains: [damaged, "is damaged or truncated"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: damaged)), bytes)
        XCTAssertNoThrow(try SourceStore(path: store), "the undamaged original passes")
    }

    func testASourceLockedByAWriterFailsAfterTheBusyTimeout() throws {
        let store = folder.path("v1.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: store)
        let writer = try Database(path: store, mode: .readWrite)
        try writer.execute("PRAGMA journal_mode = DELETE")
        try writer.execute("BEGIN EXCLUSIVE; UPDATE Book SET price = 1 WHERE id = 1")
        assertMigrationError(try SourceStore(path: store, busyTimeout: 200),
                             contains: [store, "is locked by another program (waited 0.2 s)", "Close that program"])
        try writer.execute("ROLLBACK")
        XCTAssertNoThrow(try SourceStore(path: store, busyTimeout: 200))
    }

    func testAViewNamedLikeAnEntityTableIsAClearErrorNotItsContent() throws {
        let store = folder.path("v1.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: store)
        // The real rows moved aside, and a view with the table's name and columns in their place.
        try edit(store, """
            ALTER TABLE Book RENAME TO Book_real;
            CREATE VIEW Book AS SELECT id, 'VIEW ' || title AS title, authorName, fileURL, published, price FROM Book_real;
            """)
        let before = try bytes(store)
        let source = try SourceStore(path: store)
        XCTAssertNil(try source.database.table(named: "Book"))
        XCTAssertEqual(try source.database.objectType(named: "Book"), "view")
        assertRefusedAlike(booksMigration(source: store, destination: folder.path("out.sqlite")),
                           contains: [store, "has no table Book"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
        XCTAssertEqual(try bytes(store), before)
    }

    func testATriggerNamedLikeAnEntityTableChangesNothing() throws {
        let store = folder.path("v1.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: store)
        let clean = folder.path("clean-v3.sqlite")
        try migrateBooks(source: store, destination: clean)
        try edit(store, """
            CREATE TRIGGER Book AFTER UPDATE ON User BEGIN DELETE FROM Book; END;
            CREATE TRIGGER wipe BEFORE DELETE ON Book BEGIN SELECT RAISE(FAIL, 'hostile'); END;
            """)
        let out = folder.path("out.sqlite")
        // Refused by name until the pipeline says what to do with them; dropped, the result is the clean one.
        XCTAssertThrowsError(try migrateBooks(source: store, destination: out)) { error in
            XCTAssertTrue("\(error)".contains("has triggers that no model describes: Book, wipe"), "\(error)")
        }
        let books = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"models/", with: "\"MODELS/")
            .replacingOccurrences(of: "\"format\": 1,", with: "\"format\": 1, \"triggers\": \"drop\",")
        try migrateBooks(source: store, destination: out, pipeline: try folder.pipeline("books-drop-triggers.json", books))
        try assertSameStore(out, clean)
    }

    /// A schema rewritten so that `Book.id` is no longer the INTEGER PRIMARY KEY: its values
    /// are then whatever the records hold (here the prices: reals, repeated, null).
    func lyingKeyStore() throws -> String {
        let store = folder.path("v1.sqlite")
        try BooksSample.write(rows: 300, seed: 1, to: store)
        try edit(store, """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE TABLE "Book" ("fileURL", "title", "price", "published", "authorName", "id")' WHERE name = 'Book';
            PRAGMA writable_schema = OFF;
            """)
        return store
    }

    func testAKeyColumnThatIsNotTheRowIDIsRefused() throws {
        let store = try lyingKeyStore()
        let source = try SourceStore(path: store)
        XCTAssertNil(try source.database.rowIDColumn(ofTable: "Book"))
        assertMigrationError(try SourceStore.checkKey(source.database, path: store, table: "Book", keyColumn: "id"),
                             contains: [store, "table Book's key column id is not its INTEGER PRIMARY KEY", "it has no INTEGER PRIMARY KEY"])
        XCTAssertNoThrow(try SourceStore.checkKey(source.database, path: store, table: "User", keyColumn: "id"))
        assertMigrationError(try SourceStore.checkKey(source.database, path: store, table: "User", keyColumn: "userId"),
                             contains: ["its INTEGER PRIMARY KEY is id"])
    }

    /// The same store through a whole run: without the key check the keyset scan reads the
    /// rows above the last (truncated) real key again and again, writing rows until the
    /// disk is full. Cancelled after 5 s here, so a missing check fails instead of hanging.
    /// Passes once `Engine.checkSourceSchema` calls `SourceStore.checkKey`.
    func testAKeyColumnThatIsNotTheRowIDEndsTheRunInsteadOfLoopingForever() throws {
        let store = try lyingKeyStore()
        var migration = booksMigration(source: store, destination: folder.path("out.sqlite"))
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        let timer = DispatchWorkItem { cancellation.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: timer)
        defer { timer.cancel() }
        do {
            _ = try migration.run()
            XCTFail("a store whose Book.id is not its key migrated")
        } catch MigrationError.interrupted {
            XCTFail("the run was still reading Book after 5 s: the keyset scan over a key column that is not the rowid never ends. "
                    + "Engine.checkSourceSchema must call SourceStore.checkKey(db, path:, table:, keyColumn:) for each entity table")
        } catch {
            XCTAssertTrue("\(error)".contains(store), "\(error)")
            XCTAssertTrue("\(error)".contains("INTEGER PRIMARY KEY"), "\(error)")
        }
    }

    // MARK: Mutants

    /// 200+ mutants of a 300-book store, each through `SourceStore` and a whole migration
    /// of `pipelines/books.json`.
    func testMutantsOfTheBooksSampleEndInAResultOrANamedError() throws {
        let base = folder.path("base.sqlite")
        try BooksSample.write(rows: 300, seed: 1, to: base)
        var mutator = try Mutator(base: try bytes(base), folder: folder.path("mutants"), seed: 1)
        let mutants = try mutator.books(flips: Int(ProcessInfo.processInfo.environment["ETL_HOSTILE_FLIPS"] ?? "") ?? 110)
        XCTAssertGreaterThanOrEqual(mutants.count, 200)
        let report = try runMutants(mutants) { mutant, destination in
            try migrateBooks(source: mutant, destination: destination, replace: .force)
        }
        print(report.summary(title: "books mutants"))
        // Mutants whose outcome is known in advance.
        for (name, part) in [("view-Book", "has no table Book"), ("view-Book-forever", "has no table Book"),
                             ("view-Book_users", "Book_users"), ("page-size-3", "not a SQLite database"),
                             ("truncated-page-0", "is an empty file (0 bytes)")] {
            guard let outcome = report.outcomes[name] else { XCTFail("no mutant \(name)"); continue }
            XCTAssertTrue(outcome.contains(part), "\(name): \(outcome)")
        }
        XCTAssertTrue(report.outcomes["trigger-Book"]?.contains("has triggers that no model describes: Book. Nothing was read") ?? false,
                      report.outcomes["trigger-Book"] ?? "no mutant trigger-Book")
    }

    /// Mutants of the real Core Data stores of ../shared/fixtures (copied first), through
    /// their model bundle: version detection, Z_METADATA's plist, inferred hops.
    func testMutantsOfTheCoreDataFixturesEndInAResultOrANamedError() throws {
        let chain = try FixtureSet.copy("coredata-rename-chain", into: folder.url.appendingPathComponent("fixtures"))
        let pipeline = try folder.pipeline("coredata.json", """
            { "format": 1, "models": "\(chain.path)/Model.xcdatamodeld",
              "source": { "store": "\(chain.path)/Example_v1.0.0.sqlite", "layout": "coredata" },
              "destination": { "store": "\(folder.path("unused.sqlite"))", "layout": "coredata" } }
            """)
        var mutants: [Mutant] = []
        for (index, version) in ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0", "v2.0.0"].enumerated() {
            let store = chain.appendingPathComponent("Example_\(version).sqlite").path
            var mutator = try Mutator(base: try bytes(store), folder: folder.path("cd-\(version)"), seed: UInt64(100 + index))
            mutants += try mutator.coreData(flips: 14, table: "ZBASICENTITY", prefix: version)
        }
        XCTAssertGreaterThanOrEqual(mutants.count, 100)
        let report = try runMutants(mutants) { mutant, destination in
            var migration = Migration(pipeline: pipeline)
            migration.source = mutant
            migration.destination = destination
            migration.replace = .force
            return try migration.run()
        }
        print(report.summary(title: "Core Data mutants"))
    }

    // MARK: Running mutants

    struct Report {
        var outcomes: [String: String] = [:]
        var counts: [String: Int] = [:]
        var slowest: [(name: String, seconds: Double)] = []
        var total: Double = 0

        func summary(title: String) -> String {
            let kinds = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let slow = slowest.prefix(5).map { "\($0.name) \(String(format: "%.2f", $0.seconds)) s" }.joined(separator: ", ")
            return "\(title): \(outcomes.count) in \(String(format: "%.1f", total)) s — \(kinds); slowest: \(slow)"
        }
    }

    /// Runs each mutant through `SourceStore` and `migrate`, under a watchdog. Asserts that
    /// each ends in a result or in an error naming its path, and leaves its bytes (and
    /// companions) as they were.
    func runMutants(_ mutants: [Mutant], migrate: (String, String) throws -> RunSummary,
                    file: StaticString = #filePath, line: UInt = #line) throws -> Report {
        var report = Report()
        let started = Date()
        let outputs = folder.path("out")
        for mutant in mutants {
            try? FileManager.default.removeItem(atPath: outputs)
            try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
            let before = try mutant.files.map { try bytes($0) }
            let siblings = try FileManager.default.contentsOfDirectory(atPath: mutant.folder).sorted()
            let watchdog = Watchdog(seconds: 20, mutant: mutant.path)
            let mutantStarted = Date()
            var outcome: String
            var kind: String
            do {
                _ = try SourceStore(path: mutant.path)
            } catch {
                XCTAssertTrue("\(error)".contains(mutant.path), "\(mutant.name): SourceStore's error does not name the file: \(error)", file: file, line: line)
            }
            do {
                _ = try migrate(mutant.path, outputs + "/v3.sqlite")
                outcome = "ok"
                kind = "ok"
            } catch let error as MigrationError {
                outcome = error.description
                switch error {
                case .badSource: kind = "badSource"
                case .rowFailed: kind = "rowFailed"
                case .validationFailed: kind = "validationFailed"
                case .badDestination: kind = "badDestination"
                default: kind = "other"
                }
            } catch {
                outcome = "\(type(of: error)): \(error)"
                kind = "\(type(of: error))"
            }
            watchdog.cancel()
            let seconds = Date().timeIntervalSince(mutantStarted)
            if outcome != "ok" {
                XCTAssertTrue(outcome.contains(mutant.path), "\(mutant.name): the error does not name the file: \(outcome)", file: file, line: line)
            }
            XCTAssertEqual(try mutant.files.map { try bytes($0) }, before, "\(mutant.name): the mutant's bytes changed", file: file, line: line)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mutant.folder).sorted(), siblings,
                           "\(mutant.name): files were left beside the mutant", file: file, line: line)
            report.outcomes[mutant.name] = outcome
            report.counts[kind, default: 0] += 1
            report.slowest.append((mutant.name, seconds))
        }
        report.slowest.sort { $0.seconds > $1.seconds }
        // ETL_HOSTILE_OUTCOMES=FILE appends every mutant's outcome, to read the messages.
        if let path = ProcessInfo.processInfo.environment["ETL_HOSTILE_OUTCOMES"] {
            let text = report.outcomes.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value.replacingOccurrences(of: "\n", with: " ⏎ "))\n" }.joined()
            if let handle = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil) {
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                handle.closeFile()
            }
        }
        report.total = Date().timeIntervalSince(started)
        for slow in report.slowest where slow.seconds > 5 {
            print("slow mutant: \(slow.name) took \(String(format: "%.1f", slow.seconds)) s")
        }
        return report
    }
}

/// Fails loudly if a mutant runs longer than `seconds`: the test process cannot stop a
/// thread stuck in SQLite, so the watchdog names the mutant (kept on disk) and aborts,
/// which fails the test run instead of hanging it.
final class Watchdog: @unchecked Sendable {
    private let item: DispatchWorkItem

    init(seconds: Double, mutant: String) {
        item = DispatchWorkItem {
            let message = "HostileStoreTests: the mutant \(mutant) is still running after \(Int(seconds)) s: a hang. The file is kept for a rerun.\n"
            FileHandle.standardError.write(Data(message.utf8))
            abort()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
    }

    func cancel() { item.cancel() }
}

/// One mutant: a store file (and maybe its WAL) in a folder of its own.
struct Mutant {
    var name: String
    var path: String
    var folder: String
    var files: [String]
}

/// Makes mutants of one store, deterministically from a seed.
struct Mutator {
    let base: Data
    let folder: String
    var random: SplitMix64
    let pageSize: Int

    init(base: Data, folder: String, seed: UInt64) throws {
        self.base = base
        self.folder = folder
        self.random = SplitMix64(seed: seed)
        let raw = Int(base[16]) << 8 | Int(base[17])
        pageSize = raw == 1 ? 65_536 : raw
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    var pageCount: Int { base.count / pageSize }

    /// Writes `bytes` as the mutant `name`, in a folder of its own.
    func write(_ name: String, _ bytes: Data) throws -> Mutant {
        let dir = (folder as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = (dir as NSString).appendingPathComponent("store.sqlite")
        try bytes.write(to: URL(fileURLWithPath: path))
        return Mutant(name: name, path: path, folder: dir, files: [path])
    }

    /// A copy of the base changed by SQL on an unguarded connection (writable_schema…).
    func edited(_ name: String, _ sql: String) throws -> Mutant {
        let mutant = try write(name, base)
        try edit(mutant.path, sql)
        // An edit of a WAL-mode copy leaves no WAL once closed; the mutant is one file.
        return mutant
    }

    mutating func flipped(_ index: Int) throws -> Mutant {
        var bytes = base
        let count = 1 + random.below(4)
        // Half the time in the first page: the header and the schema's root.
        let firstPage = random.below(2) == 0
        for _ in 0..<count {
            let offset = firstPage ? random.below(min(pageSize, bytes.count)) : random.below(bytes.count)
            bytes[offset] ^= UInt8(1 + random.below(255))
        }
        return try write("flip-\(index)", bytes)
    }

    func header(_ name: String, offset: Int, _ value: [UInt8]) throws -> Mutant {
        var bytes = base
        for (i, byte) in value.enumerated() { bytes[offset + i] = byte }
        return try write(name, bytes)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// Mutants any store gets: flipped bytes, truncations, header fields that lie.
    mutating func common(flips: Int, prefix: String = "") throws -> [Mutant] {
        var mutants: [Mutant] = []
        func named(_ name: String) -> String { prefix.isEmpty ? name : prefix + "-" + name }
        for i in 0..<flips { var m = try flipped(i); m.name = named(m.name); mutants.append(m) }
        // Truncated at page boundaries (0 = an empty file, which SQLite reads as an empty database).
        let boundaries = pageCount <= 12 ? Array(0..<pageCount) : (0..<12).map { $0 * pageCount / 12 }
        for k in boundaries { mutants.append(try write(named("truncated-page-\(k)"), base.prefix(k * pageSize))) }
        for i in 0..<max(6, pageCount) {
            let k = random.below(pageCount)
            mutants.append(try write(named("truncated-mid-\(i)"), base.prefix(k * pageSize + 1 + random.below(pageSize - 1))))
        }
        // Page size (offset 16, big-endian; 1 means 65536).
        for size in [0, 1, 2, 3, 256, 512, 1024, 2048, 8192, 16384, 32768, 4097, 0xFFFF] {
            mutants.append(try header(named("page-size-\(size)"), offset: 16, [UInt8(size >> 8), UInt8(size & 0xff)]))
        }
        // Database size in pages (offset 28): believed only when the change counter (24)
        // equals "version valid for" (92), so each lie is made both ways.
        let counter = Array(base[24..<28])
        for pages in [0, 1, UInt32(pageCount - 1), UInt32(pageCount + 1), UInt32(pageCount * 1000), 0x7FFF_FFFF, 0xFFFF_FFFF] as [UInt32] {
            var bytes = base
            bytes.replaceSubrange(28..<32, with: Mutator.bigEndian(pages))
            bytes.replaceSubrange(92..<96, with: counter)
            mutants.append(try write(named("db-size-\(pages)"), bytes))
            bytes.replaceSubrange(92..<96, with: Mutator.bigEndian(0x0BAD_F00D))
            mutants.append(try write(named("db-size-\(pages)-stale"), bytes))
        }
        // Other header fields.
        let fields: [(String, Int, [UInt8])] = [
            ("magic", 0, Array("SQLite format 4\0".utf8)), ("read-version-3", 18, [3]), ("write-version-9", 19, [9]),
            ("reserved-32", 20, [32]), ("reserved-255", 20, [255]), ("payload-max", 21, [65]), ("payload-min", 22, [31]),
            ("leaf-payload", 23, [33]), ("freelist-trunk", 32, Mutator.bigEndian(0x7FFF_FFF0)),
            ("freelist-count", 36, Mutator.bigEndian(0xFFFF_FFFF)), ("schema-cookie", 40, Mutator.bigEndian(0xDEAD_BEEF)),
            ("schema-format-0", 44, Mutator.bigEndian(0)), ("schema-format-5", 44, Mutator.bigEndian(5)),
            ("cache-size", 48, Mutator.bigEndian(0x8000_0000)), ("autovacuum-root", 52, Mutator.bigEndian(UInt32(pageCount + 7))),
            ("encoding-utf16le", 56, Mutator.bigEndian(2)), ("encoding-utf16be", 56, Mutator.bigEndian(3)),
            ("encoding-9", 56, Mutator.bigEndian(9)), ("incremental-vacuum", 64, Mutator.bigEndian(1)),
            ("application-id", 68, Mutator.bigEndian(0x1234_5678)),
        ]
        for (name, offset, value) in fields { mutants.append(try header(named("header-\(name)"), offset: offset, value)) }
        return mutants
    }

    /// Schema lies of any table: its CREATE statement and root page rewritten.
    func lies(table: String, columns: [String], otherTable: String, prefix: String) throws -> [Mutant] {
        let q = Database.quote
        func rewrite(_ sql: String) -> String {
            "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = \(SQLValue.text(sql).sqlLiteral) WHERE name = \(SQLValue.text(table).sqlLiteral); PRAGMA writable_schema = OFF;"
        }
        func root(_ expression: String) -> String {
            "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET rootpage = \(expression) WHERE name = \(SQLValue.text(table).sqlLiteral); PRAGMA writable_schema = OFF;"
        }
        let list = columns.map(q)
        var shuffled = list
        shuffled.swapAt(1, list.count - 1)
        let lies: [(String, String)] = [
            ("renamed-column", rewrite("CREATE TABLE \(q(table)) (\(list.dropLast().joined(separator: ", ")), \"renamed\")")),
            ("reordered-columns", rewrite("CREATE TABLE \(q(table)) (\(shuffled.joined(separator: ", ")))")),
            ("fewer-columns", rewrite("CREATE TABLE \(q(table)) (\(list.prefix(2).joined(separator: ", ")))")),
            ("more-columns", rewrite("CREATE TABLE \(q(table)) (\(list.joined(separator: ", ")), extra1, extra2 DEFAULT (zeroblob(1000000000)))")),
            ("strict-types", rewrite("CREATE TABLE \(q(table)) (\(list.first!) INTEGER PRIMARY KEY, \(list.dropFirst().map { "\($0) BLOB NOT NULL" }.joined(separator: ", "))) STRICT")),
            ("without-rowid", rewrite("CREATE TABLE \(q(table)) (\(list.first!) INTEGER PRIMARY KEY, \(list.dropFirst().joined(separator: ", "))) WITHOUT ROWID")),
            ("unparsable", rewrite("CREATE TABLE \(q(table)) (\(list.first!) INTEGER PRIMARY KEY,")),
            ("not-a-create", rewrite("SELECT 1")),
            ("generated-load-extension", rewrite("CREATE TABLE \(q(table)) (\(list.joined(separator: ", ")), evil AS (load_extension('/nonexistent/evil.so')))")),
            ("check-load-extension", rewrite("CREATE TABLE \(q(table)) (\(list.joined(separator: ", ")), CHECK (load_extension('/nonexistent/evil.so')))")),
            ("default-huge", rewrite("CREATE TABLE \(q(table)) (\(list.joined(separator: ", ")), late DEFAULT (randomblob(2000000000)))")),
            ("root-of-other", root("(SELECT rootpage FROM sqlite_schema WHERE name = \(SQLValue.text(otherTable).sqlLiteral))")),
            ("root-0", root("0")), ("root-1", root("1")), ("root-beyond", root("999999")), ("root-negative", root("-5")),
            ("duplicate-entry", "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema SELECT * FROM sqlite_schema WHERE name = \(SQLValue.text(table).sqlLiteral); PRAGMA writable_schema = OFF;"),
            ("index-on-missing-column", "CREATE INDEX lie_index ON \(q(table))(\(list[1])); PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE INDEX lie_index ON \(q(table))(nowhere)' WHERE name = 'lie_index'; PRAGMA writable_schema = OFF;"),
        ]
        return try lies.map { try edited("\(prefix)lie-\($0.0)", $0.1) }
    }

    /// All mutants of a books v1 store.
    mutating func books(flips: Int) throws -> [Mutant] {
        var mutants = try common(flips: flips)
        mutants += try lies(table: "Book", columns: ["id", "title", "authorName", "fileURL", "published", "price"], otherTable: "User", prefix: "")
        mutants += try lies(table: "Book_users", columns: ["source_id", "target_id"], otherTable: "User", prefix: "join-")
        let columns = "1 AS id, 'from a view' AS title, 'nobody' AS authorName, NULL AS fileURL, 0 AS published, 1.0 AS price"
        mutants += [
            try edited("view-Book", "DROP TABLE Book; CREATE VIEW Book AS SELECT \(columns)"),
            try edited("view-Book-forever", """
                DROP TABLE Book; CREATE VIEW Book AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c)
                SELECT n AS id, 'x' AS title, 'y' AS authorName, NULL AS fileURL, 0 AS published, 1.0 AS price FROM c
                """),
            try edited("view-Book_users", "DROP TABLE Book_users; CREATE VIEW Book_users AS SELECT id AS source_id, 1 AS target_id FROM Book"),
            try edited("trigger-Book", "CREATE TRIGGER Book AFTER UPDATE ON User BEGIN DELETE FROM Book; END"),
            try edited("trigger-on-Book", "CREATE TRIGGER hostile BEFORE DELETE ON Book BEGIN SELECT RAISE(FAIL, 'hostile'); END"),
            try edited("virtual-Book", "DROP TABLE Book; CREATE VIRTUAL TABLE Book USING fts5(title, authorName, fileURL, published, price)"),
        ]
        mutants += try wal(flips: 12, sql: """
            UPDATE Book SET title = title || ' (from the WAL)' WHERE id % 3 = 0;
            DELETE FROM Book_users WHERE source_id % 7 = 0;
            INSERT INTO User (id, userId, name) VALUES (1000, 91000, 'Only In The WAL');
            """)
        return mutants
    }

    /// A copy of the base in WAL mode whose `-wal` holds committed transactions, and
    /// mutants of that WAL: flipped bytes (frame checksums should make SQLite stop at the
    /// first bad frame), truncations, a garbage header.
    mutating func wal(flips: Int, sql: String) throws -> [Mutant] {
        let dir = (folder as NSString).appendingPathComponent("wal-base")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = (dir as NSString).appendingPathComponent("store.sqlite")
        try base.write(to: URL(fileURLWithPath: store))
        let db = try Database(path: store, mode: .readWrite)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql)
        // Copied while the writer is open: closing would checkpoint the WAL away.
        let main = try Data(contentsOf: URL(fileURLWithPath: store))
        let wal = try Data(contentsOf: URL(fileURLWithPath: store + "-wal"))
        db.close()
        try? FileManager.default.removeItem(atPath: dir)

        func write(_ name: String, _ walBytes: Data) throws -> Mutant {
            var mutant = try self.write(name, main)
            try walBytes.write(to: URL(fileURLWithPath: mutant.path + "-wal"))
            mutant.files.append(mutant.path + "-wal")
            return mutant
        }
        var mutants = [try write("wal-intact", wal)]
        for i in 0..<flips {
            var bytes = wal
            let count = 1 + random.below(3)
            for _ in 0..<count {
                // The WAL header (32 bytes), a frame header (24 bytes each), or anywhere.
                let frame = 32 + random.below(max(1, (wal.count - 32) / (pageSize + 24))) * (pageSize + 24)
                let offset = [random.below(32), min(wal.count - 1, frame + random.below(24)), random.below(wal.count)][random.below(3)]
                bytes[offset] ^= UInt8(1 + random.below(255))
            }
            mutants.append(try write("wal-flip-\(i)", bytes))
        }
        mutants.append(try write("wal-truncated-mid-frame", wal.prefix(32 + (pageSize + 24) + pageSize / 2)))
        mutants.append(try write("wal-header-only", wal.prefix(32)))
        mutants.append(try write("wal-garbage", Data((0..<wal.count).map { _ in UInt8(truncatingIfNeeded: random.next()) })))
        return mutants
    }

    /// All mutants of a Core Data store: the common ones, schema lies of its entity table,
    /// and damaged Z_METADATA plists and Z_PRIMARYKEY rows.
    mutating func coreData(flips: Int, table: String, prefix: String) throws -> [Mutant] {
        var mutants = try common(flips: flips, prefix: prefix)
        let db = try Database(path: try write("probe", base).path, mode: .readOnly)
        let columns = try db.table(named: table)?.columns.map(\.name) ?? []
        let plist = try db.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first
        db.close()
        try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent("probe"))
        if columns.count >= 2 {
            mutants += try lies(table: table, columns: columns, otherTable: "Z_METADATA", prefix: prefix + "-")
        }
        if case .blob(let bytes) = plist, !bytes.isEmpty {
            for i in 0..<8 {
                var damaged = bytes
                for _ in 0..<(1 + random.below(3)) { damaged[random.below(damaged.count)] ^= UInt8(1 + random.below(255)) }
                mutants.append(try edited("\(prefix)-plist-flip-\(i)", "UPDATE Z_METADATA SET Z_PLIST = \(SQLValue.blob(damaged).sqlLiteral)"))
            }
            mutants.append(try edited("\(prefix)-plist-truncated", "UPDATE Z_METADATA SET Z_PLIST = \(SQLValue.blob(Array(bytes.prefix(bytes.count / 2))).sqlLiteral)"))
            mutants.append(try edited("\(prefix)-plist-xml-bomb", "UPDATE Z_METADATA SET Z_PLIST = CAST(\(SQLValue.text(Mutator.nestedPlist(depth: 5_000)).sqlLiteral) AS BLOB)"))
        }
        mutants += [
            try edited("\(prefix)-plist-null", "UPDATE Z_METADATA SET Z_PLIST = NULL"),
            try edited("\(prefix)-plist-text", "UPDATE Z_METADATA SET Z_PLIST = 'not a plist'"),
            try edited("\(prefix)-metadata-empty", "DELETE FROM Z_METADATA"),
            try edited("\(prefix)-metadata-twice", "INSERT INTO Z_METADATA SELECT Z_VERSION + 1, Z_UUID, Z_PLIST FROM Z_METADATA"),
            try edited("\(prefix)-primarykey-garbage", "UPDATE Z_PRIMARYKEY SET Z_ENT = -1, Z_NAME = NULL, Z_MAX = 9223372036854775807"),
            try edited("\(prefix)-zent-garbage", "UPDATE \(Database.quote(table)) SET Z_ENT = 99"),
            try edited("\(prefix)-view-entity", "ALTER TABLE \(Database.quote(table)) RENAME TO hidden; CREATE VIEW \(Database.quote(table)) AS SELECT * FROM hidden"),
        ]
        return mutants
    }

    /// An XML plist nested `depth` arrays deep.
    static func nestedPlist(depth: Int) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth) + "</plist>"
    }
}

/// Runs SQL on a store through an ordinary (unguarded) connection.
func edit(_ path: String, _ sql: String) throws {
    let db = try Database(path: path, mode: .readWrite)
    try db.execute(sql)
    db.close()
}
