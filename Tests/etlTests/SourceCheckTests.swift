import XCTest
import Foundation
import ETL
import ETLExpression

/// One file, one answer: `run`, `batch` and `inspect` check a source store with the same
/// code (`SourceSchemaCheck`, `SourceStore`), so they say the same thing about it.
extension CommandLineTests {
    var root: URL { Self.root }

    func testRunBatchAndInspectSayTheSameAboutTheSameStore() throws {
        let books = root.appendingPathComponent("pipelines/books.json").path
        let coreData = root.appendingPathComponent("pipelines/books-coredata.json").path
        let modelV1 = root.appendingPathComponent("pipelines/models/books-v1.json").path
        let bundle = root.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path
        let fm = FileManager.default
        func store(_ name: String) throws -> String {
            let dir = folder.appendingPathComponent("stores/\(name)")
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir.appendingPathComponent("store.sqlite").path
        }
        // Given a 0-byte file, a Core Data store given to the plain pipeline, a plain store
        // given to the Core Data pipeline, and a plain store whose Book table was renamed…
        let empty = try store("empty")
        XCTAssertTrue(fm.createFile(atPath: empty, contents: Data()))
        let coreDataStore = try store("coredata")
        try fm.copyItem(atPath: root.appendingPathComponent("data/books-v1-coredata.sqlite").path, toPath: coreDataStore)
        let plainStore = try store("plain")
        try fm.copyItem(atPath: root.appendingPathComponent("data/books-v1.sqlite").path, toPath: plainStore)
        let misnamed = try store("misnamed")
        try BooksSample.write(rows: 40, seed: 3, to: misnamed)
        try Database(path: misnamed, mode: .readWrite).execute("ALTER TABLE Book RENAME TO Books")

        let cases: [(name: String, store: String, pipeline: String, models: String, says: [String])] = [
            ("empty", empty, books, modelV1, ["is an empty file (0 bytes), not a SQLite store"]),
            ("coredata", coreDataStore, books, modelV1, ["is a Core Data store (it has Z_PRIMARYKEY and Z_METADATA)", "\"layout\": \"coredata\"",
                                                          "Its tables: ZBOOK, ZUSER, Z_1USERS, Z_METADATA, Z_MODELCACHE, Z_PRIMARYKEY."]),
            ("plain", plainStore, coreData, bundle, ["is a plain SQLite store", "\"layout\": \"plain\"", "Its tables: Book, Book_users, User."]),
            ("misnamed", misnamed, books, modelV1, ["has no table Book for entity Book", "Its tables: Book_users, Books, User."]),
        ]
        for c in cases {
            // …when each command is given it…
            let run = try etl("run", c.pipeline, "--source", c.store, "--destination", "out/\(c.name).sqlite")
            let batch = try etl("batch", c.pipeline, "--stores", "stores/\(c.name)", "--out", "batch-\(c.name)")
            let inspect = try etl("inspect", c.store, "--models", c.models)
            // …each fails, with the same message.
            XCTAssertEqual(run.status, 1, "\(c.name): \(run.stderr)")
            XCTAssertEqual(batch.status, 3, "\(c.name): \(batch.stdout)\(batch.stderr)")
            XCTAssertEqual(inspect.status, 1, "\(c.name): \(inspect.stdout)\(inspect.stderr)")
            let line = try XCTUnwrap(run.stderr.split(separator: "\n").first { $0.hasPrefix("error: source store ") }, "\(c.name): \(run.stderr)")
            let message = String(line.dropFirst("error: ".count))
            XCTAssertTrue(message.hasPrefix("source store \(c.store): "), message)
            for part in c.says { XCTAssertTrue(message.contains(part), "\(c.name): \(message)\n  lacks: \(part)") }
            XCTAssertTrue(batch.stdout.contains(message), "\(c.name): batch says\n\(batch.stdout)\nnot\n\(message)")
            XCTAssertEqual(inspect.stderr, "error: " + message + "\n", c.name)
        }
    }
}
