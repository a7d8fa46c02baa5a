import XCTest
import ETLStore
import ETL
import ETLExpression

/// Bad stores and bad places: each gets a clear error naming the file, the source stays
/// byte-identical, and nothing is left at (or beside) the destination.
final class BadInputTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    var destination: String!

    override func setUpWithError() throws { (folder, source, destination) = try givenBooksStore(rows: 400, seed: 5) }

    override func tearDown() { folder = nil }

    func assertNothingWritten(besides expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try folder.files(), expected.sorted(), "files left in the folder", file: file, line: line)
    }

    func testMissingSource() throws {
        let missing = folder.path("nope.sqlite")
        assertRefusedAlike(booksMigration(source: missing, destination: destination), contains: [missing, "no such file"])
        try assertNothingWritten(besides: ["v1.sqlite"])
    }

    func testSourceThatIsNotSQLite() throws {
        let text = folder.path("notes.sqlite")
        try Data("these are not the tables you are looking for\n".utf8).write(to: URL(fileURLWithPath: text))
        let before = try bytes(text)
        assertRefusedAlike(booksMigration(source: text, destination: destination), contains: [text, "not a SQLite database"])
        XCTAssertEqual(try bytes(text), before)
        try assertNothingWritten(besides: ["notes.sqlite", "v1.sqlite"])
    }

    func testTruncatedSource() throws {
        let big = folder.path("big.sqlite")
        try BooksSample.write(rows: 20_000, seed: 5, to: big)
        let truncated = folder.path("truncated.sqlite")
        let whole = try bytes(big)
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: truncated))
        try FileManager.default.removeItem(atPath: big)
        let before = try bytes(truncated)
        assertRefusedAlike(booksMigration(source: truncated, destination: destination), contains: [truncated, "damaged or truncated"])
        XCTAssertEqual(try bytes(truncated), before)
        try assertNothingWritten(besides: ["truncated.sqlite", "v1.sqlite"])
    }

    func testSourceOfAnotherModelVersion() throws {
        // A v3 store is a store of neither version of a v1 → v2 pipeline: refused before any
        // row is read, naming what is missing.
        try migrateBooks(source: source, destination: destination)
        let before = try bytes(destination)
        let pipeline = try folder.booksStepPipeline("v1-v2.json", mappings: """
            { "name": "Books", "source": "Book", "destination": "Book", "attributes": { "title": "$source.title" } }
            """)
        var migration = Migration(pipeline: pipeline)
        migration.source = destination
        migration.destination = folder.path("again.sqlite")
        assertRefusedAlike(migration, contains: [destination, "no column authorName", "books-v1", "Its columns: id, title"])
        XCTAssertEqual(try bytes(destination), before)
        try assertNothingWritten(besides: ["v1.sqlite", "v3.sqlite", "v1-v2.json"])
    }

    func testRunCreatesAMissingDestinationFolder() throws {
        // Like `etl batch`, a run makes the folders of its destination.
        let target = folder.path("no/such/folder/v3.sqlite")
        let summary = try migrateBooks(source: source, destination: target)
        XCTAssertEqual(summary.destination, target)
        XCTAssertEqual(try Database(path: target, mode: .readOnly).scalarInt("SELECT count(*) FROM Book"), 400)
    }

    func testUnwritableDestination() throws {
        // A folder nobody can create files in, even root: a read-only file system.
        let readOnly = "/proc/1/etl-test.sqlite"
        assertMigrationError(try migrateBooks(source: source, destination: readOnly), contains: [readOnly])
        try assertNothingWritten(besides: ["v1.sqlite"])
    }

    func testDestinationThatIsTheSource() throws {
        let before = try bytes(source)
        assertMigrationError(try migrateBooks(source: source, destination: source, replace: .force), contains: [source, "source store itself"])
        XCTAssertEqual(try bytes(source), before)
    }

    func testExistingDestinationIsRefusedKeptOrReplaced() throws {
        try Data("previous".utf8).write(to: URL(fileURLWithPath: destination))
        assertMigrationError(try migrateBooks(source: source, destination: destination), contains: [destination, "already exists", "--backup", "--force"])
        XCTAssertEqual(try bytes(destination), Data("previous".utf8))

        let summary = try migrateBooks(source: source, destination: destination, replace: .backup)
        XCTAssertEqual(summary.backup, destination + ".bak")
        XCTAssertEqual(try bytes(destination + ".bak"), Data("previous".utf8))
        XCTAssertEqual(try Database(path: destination, mode: .readOnly).scalarInt("SELECT count(*) FROM Book"), 400)

        try Data("other".utf8).write(to: URL(fileURLWithPath: destination))
        try migrateBooks(source: source, destination: destination, replace: .force)
        XCTAssertEqual(try Database(path: destination, mode: .readOnly).scalarInt("SELECT count(*) FROM Book"), 400)
        try assertNothingWritten(besides: ["v1.sqlite", "v3.sqlite", "v3.sqlite.bak"])
    }

    func testValidationFailureReplacesNothing() throws {
        // Users.name is required in v2 but left unmapped: every User row lacks it.
        let pipeline = try folder.booksStepPipeline("bad.json", drop: ["User.name", "User.books", "Book"], mappings: """
            { "name": "Users", "source": "User", "destination": "User", "attributes": { "userId": "$source.userId" } }
            """)
        try Data("old v2".utf8).write(to: URL(fileURLWithPath: folder.path("v2.sqlite")))
        let before = try bytes(source)
        var migration = Migration(pipeline: pipeline)
        migration.replace = .force
        assertMigrationError(try migration.run(), contains: ["validation failed", "User.name is required but missing in 20 rows", "keys 1, 2, 3, 4, 5"])
        XCTAssertEqual(try bytes(source), before)
        XCTAssertEqual(try bytes(folder.path("v2.sqlite")), Data("old v2".utf8), "the old destination must stay")
        try assertNothingWritten(besides: ["bad.json", "v1.sqlite", "v2.sqlite"])
    }

    func testExpressionFailingOnARowNamesMappingAndKey() throws {
        let pipeline = try folder.booksStepPipeline("overflow.json", options: #""chunkSize": 7, "workers": 2"#, drop: ["User.books", "Book"], mappings: """
            { "name": "Users", "source": "User", "destination": "User",
              "attributes": { "userId": "if($source.userId == 1013, $source.userId * 9223372036854775807, $source.userId)", "name": "$source.name" } }
            """)
        assertMigrationError(try Migration(pipeline: pipeline).run(),
                             contains: ["mapping Users", "source User row 13", "$source.userId * 9223372036854775807"])
        // Nothing at the destination; the rejected row is kept beside it for the user.
        try assertNothingWritten(besides: ["overflow.json", "v1.sqlite", "v2.sqlite.rejects.jsonl.zst"])
    }
}

extension BadInputTests {
    func testASymlinkedDestinationIsRefused() throws {
        let real = folder.path("real.sqlite")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: real))
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        assertMigrationError(try migrateBooks(source: source, destination: link, replace: .force), contains: [link, "symbolic link"])
        XCTAssertEqual(try bytes(real), Data("keep me".utf8))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), real)
    }
}
