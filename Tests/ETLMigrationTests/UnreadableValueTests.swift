import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// Issue 42, as a user met it: the books sample with three values its types do not read
/// ('garbage' and x'00' as book 1's and 3's `published`, 'abc' as book 4's `price`) ran
/// with exit 0, `rejected 0`, `nulled 0` (two null dates and a price of 0). Now those
/// books are rejected, with the values as stored, in every way the run can go; or, where
/// the pipeline says `"unreadable": "null"`, made null and counted as nulled.
final class UnreadableValueTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func writeBadBooks() throws -> String {
        let source = folder.path("b.sqlite")
        try BooksSample.write(rows: 200, seed: 3, to: source)
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE Book SET published = 'garbage' WHERE rowid = 1; UPDATE Book SET published = x'00' WHERE rowid = 3; "
                       + "UPDATE Book SET price = 'abc' WHERE rowid = 4")
        db.close()
        return source
    }

    /// The repository's books pipeline, with its models where they are, changed by `edit`.
    func booksPipeline(_ edit: (String) -> String = { $0 }) throws -> String {
        let text = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"models/", with: "\"" + repositoryPath("pipelines/models") + "/")
        return try folder.pipeline("books.json", edit(text))
    }

    func run(_ pipeline: String, source: String, into name: String, pushdown: Bool = true, fuse: Bool = true,
             maxRejects: Int? = 10) throws -> RunSummary {
        var migration = booksMigration(source: source, destination: folder.path(name), pipeline: pipeline, fuseSteps: fuse)
        migration.pushdown = pushdown
        migration.options.maxRejects = maxRejects
        return try migration.run()
    }

    func testTheThreeBadBooksAreRejectedWithTheirValuesInEveryWayTheRunGoes() throws {
        let source = try writeBadBooks()
        let pipeline = try booksPipeline()
        var outputs: [String] = []
        for (pushdown, fuse) in [(true, true), (false, true), (true, false), (false, false)] {
            let name = "out-\(pushdown)-\(fuse).sqlite"
            let summary = try run(pipeline, source: source, into: name, pushdown: pushdown, fuse: fuse)
            outputs.append(folder.path(name))
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
            XCTAssertEqual(rejects.map(\.key).sorted(), [1, 3, 4], "pushdown \(pushdown), fused \(fuse)")
            let byKey = Dictionary(uniqueKeysWithValues: rejects.map { ($0.key, $0) })
            XCTAssertEqual(byKey[1]?.values["$source.published"], "garbage")
            XCTAssertEqual(byKey[3]?.values["$source.published"], "x'00'")
            XCTAssertEqual(byKey[4]?.values["$source.price"], "abc")
            XCTAssertEqual(byKey[1]?.error.contains("the stored TEXT 'garbage' is not a date value"), true, byKey[1]?.error ?? "")
            XCTAssertEqual(byKey[3]?.error.contains("the stored BLOB x'00' is not a date value"), true, byKey[3]?.error ?? "")
            XCTAssertEqual(byKey[4]?.error.contains("the stored TEXT 'abc' is not a double value"), true, byKey[4]?.error ?? "")
            XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.rejected }, 3)
            XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.nullsOnPurpose }, 0)
            let db = try Database(path: folder.path(name), mode: .readOnly)
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book"), 197)
        }
        for output in outputs.dropFirst() { try assertSameStore(outputs[0], output) }
    }

    func testWithoutRoomForRejectsTheRunFailsNamingTheFirstBadValue() throws {
        let source = try writeBadBooks()
        for pushdown in [true, false] {
            assertMigrationError(try run(try booksPipeline(), source: source, into: "o-\(pushdown).sqlite", pushdown: pushdown, maxRejects: nil),
                                 contains: ["source Book row 1: $source.published: store \(source), Book row 1: the stored TEXT 'garbage' is not a date value"])
        }
    }

    func testUnreadableNullMakesThemNullAndCountsThem() throws {
        let source = try writeBadBooks()
        let pipeline = try booksPipeline { $0.replacingOccurrences(of: "\"workers\": 2 }", with: "\"workers\": 2, \"unreadable\": \"null\" }") }
        var outputs: [String] = []
        for pushdown in [true, false] {
            var migration = booksMigration(source: source, destination: folder.path("null-\(pushdown).sqlite"), pipeline: pipeline)
            migration.pushdown = pushdown
            let events = Recorded<ProgressEvent>()
            let summary = try migration.run { events.list.append($0) }
            outputs.append(folder.path("null-\(pushdown).sqlite"))
            // `--progress json` shows the same count, at the end of the mapping's create stage.
            let finished = events.list.last { $0.kind == .finished && $0.stage == .create && $0.mapping == "Books" && $0.step == 1 }
            XCTAssertEqual(finished?.nulled, 3, "pushdown \(pushdown)")
            XCTAssertEqual(finished?.rejected, 0, "pushdown \(pushdown)")
            XCTAssertNil(summary.rejectFile)
            XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.nullsOnPurpose }, 3, "pushdown \(pushdown)")
            let db = try Database(path: outputs.last!, mode: .readOnly)
            let rows = try db.rows("SELECT id, published IS NULL, price IS NULL FROM Book WHERE id IN (1, 3, 4) ORDER BY id")
            XCTAssertEqual(rows.map { $0[1] }, [.integer(1), .integer(1), .integer(0)], "books 1 and 3 have no date")
            XCTAssertEqual(rows[2][2], .integer(1), "book 4 has no price")
        }
        try assertSameStore(outputs[0], outputs[1])
    }

    func testUnreadableNullForOneAttributeLeavesTheOthersRejected() throws {
        let source = try writeBadBooks()
        let pipeline = try booksPipeline {
            $0.replacingOccurrences(of: "\"name\": \"Books\", \"source\": \"Book\", \"destination\": \"Book\",\n",
                                    with: "\"name\": \"Books\", \"source\": \"Book\", \"destination\": \"Book\", \"unreadable\": { \"published\": \"null\" },\n")
        }
        XCTAssertTrue(try String(contentsOfFile: pipeline, encoding: .utf8).contains("\"published\": \"null\""))
        for pushdown in [true, false] {
            let summary = try run(pipeline, source: source, into: "one-\(pushdown).sqlite", pushdown: pushdown)
            XCTAssertEqual(try RejectFile.read(XCTUnwrap(summary.rejectFile)).map(\.key), [4], "pushdown \(pushdown)")
            XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.nullsOnPurpose }, 2, "pushdown \(pushdown)")
        }
    }

    func testAnUnknownActionOrAttributeIsRefusedWithWhatToWrite() throws {
        let source = try writeBadBooks()
        let wrongValue = try booksPipeline { $0.replacingOccurrences(of: "\"workers\": 2 }", with: "\"workers\": 2, \"unreadable\": \"nul\" }") }
        XCTAssertTrue(Self.errorText { try self.run(wrongValue, source: source, into: "a.sqlite") }
            .hasSuffix("books.json:5:63: $.options.unreadable: unknown value 'nul' for \"unreadable\"; one of: reject, null"))
        let wrongName = try booksPipeline {
            $0.replacingOccurrences(of: "\"name\": \"Books\", \"source\": \"Book\", \"destination\": \"Book\",\n",
                                    with: "\"name\": \"Books\", \"source\": \"Book\", \"destination\": \"Book\", \"unreadable\": { \"publshed\": \"null\" },\n")
        }
        XCTAssertTrue(Self.errorText { try self.run(wrongName, source: source, into: "b.sqlite") }
            .hasSuffix("$.steps[0].mappings[1].unreadable.publshed: \"unreadable\" names 'publshed', which is no attribute of source entity Book (did you mean 'published'?)"))
    }

    /// A Core Data store's date held as ISO text names its instant: converted to seconds
    /// since 2001 once (the issue saw it shifted twice: 2050-01-05).
    func testACoreDataTextDateArrivesAsTheDayItNames() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 30, seed: 5, to: source, layout: .coredata)
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE ZBOOK SET ZPUBLISHED = '2019-01-05T10:00:00Z' WHERE Z_PK = 1")
        let title = try db.rows("SELECT ZTITLE FROM ZBOOK WHERE Z_PK = 1")[0][0]
        db.close()
        // 2019-01-05T10:00:00Z is 1,546,682,400 s after 1970 and 978,307,200 s separate 1970 from 2001.
        XCTAssertEqual(1_546_682_400 - 978_307_200, 568_375_200)
        for pushdown in [true, false] {
            var migration = booksMigration(source: source, destination: folder.path("cd-\(pushdown).sqlite"),
                                           pipeline: repositoryPath("pipelines/books-coredata.json"))
            migration.pushdown = pushdown
            let summary = try migration.run()
            XCTAssertNil(summary.rejectFile)
            let out = try Database(path: folder.path("cd-\(pushdown).sqlite"), mode: .readOnly)
            XCTAssertEqual(try out.rows("SELECT ZPUBLISHED FROM ZBOOK WHERE ZTITLE = ?", [title]).first?.first.map { Self.number($0) }, 568_375_200,
                           "pushdown \(pushdown)")
        }
    }

    static func errorText(_ body: () throws -> Any) -> String {
        do { _ = try body() } catch { return "\(error)" }
        return "no error"
    }

    static func number(_ value: SQLValue) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .real(let r): return r
        default: return nil
        }
    }
}
