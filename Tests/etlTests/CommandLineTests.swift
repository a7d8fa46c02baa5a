import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// The `etl` executable as a user runs it: exit codes, messages, help.
final class CommandLineTests: XCTestCase {
    typealias Result = ToolRun

    static var root: URL { repositoryRoot }

    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-cli") }
    override func tearDown() { temporary = nil }

    func etl(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    func run(_ arguments: [String]) throws -> Result {
        try ToolProcess.run(arguments, in: folder)
    }

    var pipeline: String { Self.root.appendingPathComponent("pipelines/books.json").path }

    /// Users of books v1 into v2, every fourth failing on an integer overflow: rejected rows.
    static let overflowingUsers = """
        { "name": "Users", "source": "User", "destination": "User",
          "attributes": { "userId": "if($source.userId % 4 == 0, $source.userId * 9223372036854775807, $source.userId)", "name": "$source.name" } }
        """

    func testHelpTeachesTheCommandsAndExitCodes() throws {
        let help = try etl("--help")
        XCTAssertEqual(help.status, 0)
        for part in ["run", "sample", "Exit codes", "2         bad usage", "etl run pipelines/books.json"] {
            XCTAssertTrue(help.stdout.contains(part), "--help lacks '\(part)':\n\(help.stdout)")
        }
        let run = try etl("run", "--help")
        XCTAssertEqual(run.status, 0)
        for part in ["--backup", "--force", "--chunk-size", "Examples:", "relative to the pipeline file's folder"] {
            XCTAssertTrue(run.stdout.contains(part), "run --help lacks '\(part)':\n\(run.stdout)")
        }
    }

    /// Bookmarks V2 (same schema as V1): inspect shows, per version, which entity hashes
    /// match, and the digest; the version is told by the hashes.
    func testInspectShowsPerVersionWhetherEachEntitysHashMatches() throws {
        for name in ["Bookmarks_V2.sqlite", "Bookmarks_V2.sqlite-wal", "BookmarksModel.xcdatamodeld"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/\(name)", into: folder)
        }
        let result = try etl("inspect", "Bookmarks_V2.sqlite", "--models", "BookmarksModel.xcdatamodeld")
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in ["digest   KOVMA003UkROpjwLxlVoeHbPbvDabq7nYfdZdUSoYMGLW4Xy6kfgM5kIQvWOkrIG9JycFVi/ysBgUAZn26pZOQ==",
                     "hashes   ≠ BookmarksModel: BookmarkEntity differs; digest differs",
                     "hashes   = BookmarksModel 2: BookmarkEntity matches; digest matches",
                     "hashes   ≠ BookmarksModel 6: BookmarkEntity differs; digest differs",
                     "version  BookmarksModel 2 (by version hashes and schema)"] {
            XCTAssertTrue(result.stdout.contains(line), "lacks '\(line)':\n\(result.stdout)")
        }
    }

    func testSampleThenRunPrintsProgressAndSummary() throws {
        let sample = try etl("sample", "books", "--version", "1", "--rows", "300", "--seed", "2", "--out", "v1.sqlite")
        XCTAssertEqual(sample.status, 0, sample.stderr)
        XCTAssertTrue(sample.stdout.contains("300 books, 15 users"), sample.stdout)

        let run = try etl("run", pipeline, "--source", "v1.sqlite", "--destination", "v3.sqlite", "--workers", "2")
        XCTAssertEqual(run.status, 0, run.stderr)
        // Not a terminal: one log line per stage. The two steps run as one (`StepFusion`).
        XCTAssertTrue(run.stderr.contains("step 1/1 create Users (v1 to v2 + v2 to v3): 15 rows"), run.stderr)
        XCTAssertTrue(run.stderr.contains("step 1/1 relate Books (v1 to v2 + v2 to v3)"), run.stderr)
        XCTAssertTrue(run.stderr.contains("step 1/1 validate"), run.stderr)
        // The summary: one line per mapping and step, and a total.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // The fused step goes from the source (1) over two hops; its name below the table.
        XCTAssertTrue(lines.contains { $0.hasPrefix("1 → 3  Authors") && $0.contains("Book → Author") }, run.stdout)
        XCTAssertTrue(lines.contains("step 1 → 3: v1 to v2 + v2 to v3"), run.stdout)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 100 || !$0.contains("Authors") }, run.stdout)
        XCTAssertTrue(lines.contains("note: steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"), run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("total") }, run.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("v3.sqlite").path))

        // Again: the destination exists → exit 1, nothing touched.
        let again = try etl("run", pipeline, "--source", "v1.sqlite", "--destination", "v3.sqlite")
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already exists. Pass --backup"), again.stderr)
    }

    func testMigrationFailureExitsOne() throws {
        try Data("not a store, but long enough to have a header of sorts: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789".utf8)
            .write(to: folder.appendingPathComponent("notes.sqlite"))
        let run = try etl("run", pipeline, "--source", "notes.sqlite", "--destination", "v3.sqlite")
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("notes.sqlite: is not a SQLite database"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("v3.sqlite").path))
    }

    func testBadPipelineExitsTwoWithThePlace() throws {
        let bad = folder.appendingPathComponent("bad.json")
        try Data("{\n  \"format\": 1,\n  \"source\" { }\n}\n".utf8).write(to: bad)
        let run = try etl("run", bad.path)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("bad.json:3:12: $: invalid JSON: unexpected '{', expected ':' after key 'source'"), run.stderr)

        let missing = try etl("run", "nope.json")
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.json: pipeline file not found"), missing.stderr)
    }

    func testBadUsageExitsTwo() throws {
        for arguments in [["run", pipeline, "--backup", "--force"], ["run", pipeline, "--bogus"], ["run"],
                          ["run", pipeline, "--chunk-size", "0"], ["sample", "books", "--version", "2", "--out", "x.sqlite"],
                          ["sample", "cars", "--out", "x.sqlite"],
                          // An unknown option beside sample's own --version: an error, not the version.
                          ["sample", "books", "--version", "1", "--output", "x.sqlite"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty)
        }
    }

    func testVersionIsPrintedByEtlItself() throws {
        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines), ETLVersion.current)
        let bare = try run([])
        XCTAssertEqual(bare.status, 0, bare.stderr)
        XCTAssertTrue(bare.stdout.contains("SUBCOMMANDS"), bare.stdout)
    }

    func testTheExampleProgramIsEtlWithItsPolicy() throws {
        let sample = try ToolProcess.run(["make-sample", folder.appendingPathComponent("posts-v2.sqlite").path, "50"], program: "post-sections")
        XCTAssertEqual(sample.status, 0, sample.stderr)
        let run = try ToolProcess.run(["run", Self.root.appendingPathComponent("Examples/PostSections/posts.json").path,
                                       "--source", folder.appendingPathComponent("posts-v2.sqlite").path,
                                       "--destination", folder.appendingPathComponent("posts-v3.sqlite").path, "--wide"], program: "post-sections")
        let stdout = run.stdout
        XCTAssertEqual(run.status, 0, stdout)
        XCTAssertTrue(stdout.contains("Posts/Section  Post → Section"), stdout)
    }

    func testRejectedRowsAreKeptAndPrinted() throws {
        XCTAssertEqual(try etl("sample", "books", "--rows", "200", "--out", "v1.sqlite").status, 0)
        let pipeline = try temporary.booksStepPipeline("picky.json", options: #""maxRejects": 5"#, drop: ["User.books", "Book"], mappings: Self.overflowingUsers)
        let run = try etl("run", pipeline)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("rejected rows are kept in"), run.stdout)
        let file = folder.appendingPathComponent("v2.sqlite.rejects.jsonl.zst").path
        let rejects = try etl("rejects", file)
        XCTAssertEqual(rejects.status, 0, rejects.stderr)
        XCTAssertTrue(rejects.stdout.contains("mapping Users · create · source User row 4"), rejects.stdout)
        XCTAssertTrue(rejects.stdout.contains("$source.userId = 1004"), rejects.stdout)
        XCTAssertTrue(rejects.stdout.contains("2 rejected rows"), rejects.stdout)
    }

    /// A FIFO named as the reject file is refused at once (reading it waited forever on a
    /// writer), as `run` refuses one named as its source; so is a folder.
    func testRejectsRefusesAFIFOAndAFolder() throws {
        let fifo = folder.appendingPathComponent("planted.rejects.jsonl.zst").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let result = try etl("rejects", fifo)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains(fifo) && result.stderr.contains("is a FIFO (named pipe), not a reject file"), result.stderr)
        let folderResult = try etl("rejects", folder.path)
        XCTAssertNotEqual(folderResult.status, 0)
        XCTAssertTrue(folderResult.stderr.contains("is a folder, not a reject file"), folderResult.stderr)
    }

    /// A store's Z_PLIST of shared references (999 x 999 to a 10 KB string, 14 KB): inspect
    /// says why its metadata cannot be read, at once (it ran for minutes, growing).
    func testInspectSaysWhyAHostileZPlistCannotBeRead() throws {
        XCTAssertEqual(try etl("sample", "books", "--layout", "coredata", "--rows", "20", "--out", "v1.sqlite").status, 0)
        var plist = PropertyListBuilder()
        let text = plist.string(String(repeating: "x", count: 10_000))
        let inner = plist.array(Array(repeating: text, count: 999))
        let outer = plist.array(Array(repeating: inner, count: 999))
        let top = plist.dictionary([(plist.string("NSStoreType"), plist.string("SQLite")), (plist.string("com.example.bomb"), outer)])
        let db = try Database(path: folder.appendingPathComponent("v1.sqlite").path, mode: .readWrite)
        try db.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(plist.bytes(top: top))])
        db.close()
        let inspect = try etl("inspect", "v1.sqlite")
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("metadata unreadable: ") && inspect.stdout.contains("Z_METADATA.Z_PLIST is not a readable binary property list"),
                      inspect.stdout)
    }

    /// The summary counts, per mapping, what changed: values made null on purpose here.
    func testTheSummaryCountsValuesMadeNullOnPurpose() throws {
        XCTAssertEqual(try etl("sample", "books", "--rows", "50", "--out", "v1.sqlite").status, 0)
        let pipeline = try temporary.booksStepPipeline("nulls.json", drop: ["User.books", "Book"], mappings: """
            { "name": "Users", "source": "User", "destination": "User",
              "attributes": { "userId": "$source.userId", "name": "coalesce(string(orNull(integer($source.name))), $source.name)" } }
            """)
        let run = try etl("run", pipeline)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("step") })
        XCTAssertTrue(header.contains("rejected  nulled  dropped  written"), header)
        let users = try XCTUnwrap(lines.first { $0.contains("Users") })
        let cells = users.split(separator: " ").map(String.init)
        let read = cells[cells.count - 8], nulled = cells[cells.count - 5]
        XCTAssertEqual(nulled, read, "every name is no integer: \(users)")
        XCTAssertNotEqual(read, "0")
    }
}
