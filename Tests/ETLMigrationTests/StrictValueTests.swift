import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
@testable import ETLEngine

/// Given a notes store whose `createdAt` is text written by hand (empty, 'yesterday',
/// slashes, impossible fields, Feb 30, seconds since 1970), when migrated to a store whose
/// `createdAt` is a date, then no value becomes null without the pipeline saying so: a
/// value `date()` cannot convert rejects its row, with the value in the reject file, and
/// the run gives the same store and the same counts inside SQLite and row by row.
final class StrictValueTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// The bad dates, by note key.
    let badDates: [Int64: String] = [
        3: "", 7: "yesterday", 11: "2024/03/05", 12: "2024-13-45T99:99:99Z", 20: "2024-02-30T00:00:00Z",
    ]

    /// 30 notes: good ISO dates, one '1712345678' (seconds since 1970, which converts), a
    /// null, and the bad ones above.
    func writeNotes(titles: [Int64: String] = [:], count: Int64 = 30, bad: [Int64: String]? = nil) throws -> String {
        let badDates = bad ?? self.badDates
        let models = """
            { "version": "VERSION", "entities": [
              { "name": "Note", "attributes": [
                  { "name": "title", "type": "string" }, { "name": "createdAt", "type": "TYPE" } ] } ] }
            """
        for (version, type) in [("notes-v1", "string"), ("notes-v2", "date")] {
            let text = models.replacingOccurrences(of: "VERSION", with: version).replacingOccurrences(of: "TYPE", with: type)
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path("\(version).json")))
        }
        let source = folder.path("notes.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: try ModelFile.load(path: folder.path("notes-v1.json"))).schemaSQL() { try db.execute(sql) }
        let insert = try db.prepare("INSERT INTO Note (id, title, createdAt) VALUES (?, ?, ?)")
        try db.execute("BEGIN")
        for key in Int64(1)...count {
            let created: SQLValue
            if let bad = badDates[key] {
                created = .text(bad)
            } else if key == 5 {
                created = .text("1712345678")
            } else if key == 6 {
                created = .null
            } else {
                created = .text(String(format: "2024-01-%02dT10:00:00Z", key <= 30 ? key : key % 28 + 1))
            }
            try insert.run([.integer(key), .text(titles[key] ?? " note \(key)\t"), created])
        }
        try db.execute("COMMIT")
        db.close()
        return source
    }

    /// - Parameter uniqueBy: the Notes mapping's uniqueBy, if any.
    func pipeline(createdAt: String, maxRejects: Int, uniqueBy: String? = nil) throws -> String {
        try folder.pipeline("notes.json", """
            { "format": 1,
              "source": { "store": "notes.sqlite", "model": "notes-v1.json" },
              "destination": { "store": "unused.sqlite", "model": "notes-v2.json" },
              "options": { "maxRejects": \(maxRejects) },
              "steps": [ { "mappings": [
                { "name": "Notes", "source": "Note", "destination": "Note", \(uniqueBy.map { "\"uniqueBy\": \"\($0)\"," } ?? "")
                  "attributes": { "title": "trim($source.title)", "createdAt": "\(createdAt)" } } ] } ] }
            """)
    }

    func run(_ pipeline: String, into name: String, pushdown: Bool) throws -> RunSummary {
        var migration = Migration(pipeline: pipeline)
        migration.destination = folder.path(name)
        migration.pushdown = pushdown
        migration.chunkSize = 4
        return try migration.run()
    }

    func testWithNoRoomForRejectsTheRunFailsNamingTheFirstBadRowAndValue() throws {
        _ = try writeNotes()
        let pipeline = try pipeline(createdAt: "date($source.createdAt)", maxRejects: 0)
        for pushdown in [true, false] {
            assertMigrationError(try run(pipeline, into: "out-\(pushdown).sqlite", pushdown: pushdown),
                                 contains: ["Note", "3", "date($source.createdAt)", "date(''): not a date"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out-\(pushdown).sqlite")), "nothing replaced")
        }
    }

    func testTheRejectFileHoldsExactlyTheBadValuesBothWays() throws {
        _ = try writeNotes()
        let pipeline = try pipeline(createdAt: "date($source.createdAt)", maxRejects: 10)
        let pushed = try run(pipeline, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        XCTAssertEqual(pushed.notes, ["step step 1 ran row by row, not inside SQLite: mapping Notes has values that are rejected (date(''): not a date (ISO 8601 such as 2024-01-31 or 2024-01-31T10:00:00Z, of a day the month has, or seconds since 1970))"])
        for summary in [pushed, rows] {
            XCTAssertEqual(summary.mappings[0].rejected, 5)
            XCTAssertEqual(summary.mappings[0].written, 25)
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: rejects.map { ($0.key, $0.values["$source.createdAt"] ?? "?") }), badDates)
            XCTAssertTrue(rejects.allSatisfy { $0.error.contains("not a date") && $0.expression == "date($source.createdAt)" })
        }
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT createdAt = 1712345678 FROM Note WHERE id = 5"), 1, "seconds since 1970")
        XCTAssertEqual(try db.rows("SELECT createdAt FROM Note WHERE id = 6"), [[.null]], "null stays null")
        XCTAssertEqual(try db.rows("SELECT title FROM Note WHERE id = 9"), [[.text("note 9")]], "trim takes the tab too")
    }

    /// `orNull` says null is wanted: nothing is rejected, the nulls are counted, and the
    /// step runs inside SQLite with the same result.
    func testOrNullRunsInsideSQLiteAndCountsTheNulls() throws {
        _ = try writeNotes()
        let pipeline = try pipeline(createdAt: "orNull(date($source.createdAt))", maxRejects: 0)
        let pushed = try run(pipeline, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, into: "rows.sqlite", pushdown: false)
        XCTAssertEqual(pushed.notes, [], "pushed down")
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        for summary in [pushed, rows] {
            XCTAssertEqual(summary.mappings[0].rejected, 0)
            XCTAssertEqual(summary.mappings[0].nullsOnPurpose, 5)
            XCTAssertEqual(summary.mappings[0].written, 30)
        }
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Note WHERE createdAt IS NULL"), 6, "five on purpose, one null already")
    }

    /// Over `RejectScan.wholeUpTo` notes, in many chunks: the nulls of every chunk are
    /// counted, and the value reported is the first bad one in key order. A uniqueBy
    /// mapping's values are checked before the create (its insert reads first rows only),
    /// in two halves on two connections: alike.
    func testOverManyChunksTheNullsAreCountedAndTheFirstBadValueReported() throws {
        let count = Int64(RejectScan.wholeUpTo) + 10_000
        let bad: [Int64: String] = [9: "yesterday", count / 2 + 100: "", count - 1: "2024-02-30T00:00:00Z"]
        _ = try writeNotes(count: count, bad: bad)
        for uniqueBy in [nil, "$source.title"] {
            let nulled = try pipeline(createdAt: "orNull(date($source.createdAt))", maxRejects: 0, uniqueBy: uniqueBy)
            let pushed = try run(nulled, into: "pushed-\(uniqueBy != nil).sqlite", pushdown: true)
            XCTAssertEqual(pushed.notes, [], "pushed down")
            XCTAssertEqual(pushed.mappings[0].nullsOnPurpose, 3, "every chunk, both halves counted")
            XCTAssertEqual(pushed.mappings[0].written, Int(count))

            let rejected = try pipeline(createdAt: "date($source.createdAt)", maxRejects: 10, uniqueBy: uniqueBy)
            let fallback = try run(rejected, into: "rows-\(uniqueBy != nil).sqlite", pushdown: true)
            XCTAssertEqual(fallback.notes.count, 1)
            XCTAssertTrue(fallback.notes[0].contains("mapping Notes has values that are rejected (date('yesterday')"), fallback.notes[0])
            XCTAssertEqual(fallback.mappings[0].rejected, 3)
        }
    }

    /// A bad value late in the store: inside SQLite, the chunks before it are made, then its
    /// chunk fails, and the step starts over row by row. Stopped there, the checkpoint says
    /// so, and the resumed run goes on row by row from where it stopped (one start of the
    /// create stage, not another try inside SQLite): the store, rejects and counts of a run
    /// row by row from the start.
    func testARejectedValueInsideSQLiteStartsTheStepOverRowByRowAndAResumeStaysThere() throws {
        _ = try writeNotes(count: 2000, bad: [1900: "yesterday"])
        let pipeline = try pipeline(createdAt: "date($source.createdAt)", maxRejects: 10)
        let rows = try run(pipeline, into: "rows.sqlite", pushdown: false)

        let destination = folder.path("pushed.sqlite")
        var migration = Migration(pipeline: pipeline)
        migration.destination = destination
        migration.chunkSize = 4
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        let first = ResumeTests.EventLog()
        XCTAssertThrowsError(try migration.run { event in
            first.append(event)
            let starts = first.all.filter { $0.kind == .started && $0.stage == .create }.count
            if starts == 2, event.kind == .advanced, event.done >= 1000 { cancellation.cancel() }
        })
        let tries = first.all.filter { $0.kind == .started && $0.stage == .create }
        XCTAssertEqual(tries.count, 2, "inside SQLite, then row by row")
        XCTAssertTrue(first.all.contains { $0.kind == .advanced && $0.stage == .create && $0.done == 1600 }, "chunks before the bad one were made inside SQLite")
        let checkpoint = try XCTUnwrap(try CheckpointFile(destination: destination).read())
        guard case .valuesRejected("Notes", let detail)? = checkpoint.lessons.rowByRow else {
            return XCTFail("the checkpoint keeps why the step runs row by row: \(checkpoint.lessons)")
        }
        XCTAssertTrue(detail.hasPrefix("date('yesterday')"), detail)
        XCTAssertNil(checkpoint.lessons.policiesRowByRow)

        migration.cancellation = nil
        let second = ResumeTests.EventLog()
        let resumed = try migration.run { second.append($0) }
        XCTAssertEqual(second.all.first?.kind, .resumed)
        XCTAssertEqual(second.all.filter { $0.kind == .started && $0.stage == .create }.count, 1, "went on row by row")
        XCTAssertEqual(resumed.notes.count, 1)
        XCTAssertTrue(resumed.notes[0].hasPrefix("step step 1 ran row by row, not inside SQLite: mapping Notes has values that are rejected (date('yesterday')"),
                      resumed.notes[0])
        try assertSameStore(destination, folder.path("rows.sqlite"))
        XCTAssertEqual(resumed.mappings.map(\.rejected), rows.mappings.map(\.rejected))
        XCTAssertEqual(resumed.mappings.map(\.written), rows.mappings.map(\.written))
        XCTAssertEqual(try RejectFile.read(XCTUnwrap(resumed.rejectFile)).map(\.key), [1900])
    }

    /// A blob in a string attribute arrives byte for byte when it is UTF-8 text, and is
    /// rejected when it is not, never re-encoded; alike both ways.
    func testABlobInAStringAttributeIsCopiedByteForByteOrRejected() throws {
        let source = try writeNotes()
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE Note SET title = x'DEADBEEF' WHERE id = 2; UPDATE Note SET title = CAST('café' AS BLOB) WHERE id = 4")
        db.close()
        let pipeline = try folder.pipeline("notes.json", """
            { "format": 1,
              "source": { "store": "notes.sqlite", "model": "notes-v1.json" },
              "destination": { "store": "unused.sqlite", "model": "notes-v1.json" },
              "options": { "maxRejects": 10 },
              "steps": [ { "mappings": [ { "source": "Note", "destination": "Note",
                  "attributes": { "title": "$source.title", "createdAt": "$source.createdAt" } } ] } ] }
            """)
        let pushed = try run(pipeline, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        XCTAssertEqual(pushed.notes.count, 1)
        XCTAssertTrue(pushed.notes[0].contains("has values that are rejected ($source.title: the stored BLOB x'DEADBEEF' is not a string value"), pushed.notes[0])
        for summary in [pushed, rows] {
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
            XCTAssertEqual(rejects.map(\.key), [2])
            XCTAssertEqual(rejects.first?.expression, "$source.title")
            XCTAssertTrue(rejects.first?.error.contains("is not UTF-8 text") ?? false)
        }
        let out = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT hex(title) FROM Note WHERE id = 4"), [[.text("636166C3A9")]], "the UTF-8 bytes of 'café'")
    }

    /// The same for a forEach item: a row × item reading such a blob is rejected, not given null.
    func testAnItemWithANonUTF8BlobIsRejected() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 60, seed: 4, to: source)
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE User SET name = x'FF00FF' WHERE id = 1")
        let links = try db.scalarInt("SELECT count(*) FROM Book_users WHERE target_id = 1")
        db.close()
        XCTAssertGreaterThan(links, 0)
        let pipeline = try folder.booksStepPipeline("items.json", destination: "out.sqlite", options: #""maxRejects": 1000"#,
                                                  drop: ["User.userId", "Book.title", "Book.authorName", "Book.fileURL", "Book.published", "Book.price"], mappings: """
            { "name": "Readers", "source": "Book", "destination": "Author",
              "forEach": "$source.users", "attributes": { "name": "$item.name" } }
            """)
        let summary = try Migration(pipeline: pipeline).run()
        let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
        XCTAssertEqual(Int64(rejects.count), Int64(links), "one per book read by user 1")
        XCTAssertTrue(rejects.allSatisfy { $0.expression == "$item.name" && $0.error.hasPrefix("item 1: store \(source), User row 1: the stored BLOB x'FF00FF' is not a string value") }, "\(rejects.first!)")
    }
}
