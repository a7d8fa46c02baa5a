import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLEngine
import ETL

/// A step pushed down into SQLite must write exactly the store the row-by-row engine
/// writes: same rows, same keys, same storage classes, same links. Each test runs the same
/// pipeline both ways and compares the stores.
final class PushdownTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func run(_ pipeline: String, source: String, into name: String, pushdown: Bool) throws -> RunSummary {
        var migration = Migration(pipeline: pipeline)
        migration.source = source
        migration.destination = folder.path(name)
        migration.pushdown = pushdown
        migration.chunkSize = 3  // push-down chunks of 300 keys: several per mapping
        return try migration.run()
    }

    func testTheBooksChainGivesTheSameStoreBothWays() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 1500, seed: 5, to: source)
        let pipeline = repositoryPath("pipelines/books.json")
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        XCTAssertEqual(pushed.mappings.map(\.written), rows.mappings.map(\.written))
        XCTAssertEqual(pushed.mappings.map(\.read), rows.mappings.map(\.read))
        XCTAssertEqual(pushed.mappings.map(\.filtered), rows.mappings.map(\.filtered))
        XCTAssertEqual(pushed.mappings.map(\.related), rows.mappings.map(\.related))
        XCTAssertEqual(pushed.mappings.map(\.associated), rows.mappings.map(\.associated))
        // Both steps ran inside SQLite, as one (`StepFusion`), Files' forEach included: nothing
        // else to note.
        let fused = "steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"
        XCTAssertEqual(pushed.notes, [fused])
        XCTAssertEqual(rows.notes, [fused])
        // One File per (book with a file, user) pair, each linked to its book and its user.
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        let files = try db.scalarInt("SELECT count(*) FROM File")
        XCTAssertGreaterThan(files, 0)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM File WHERE book_id IS NULL OR user_id IS NULL"), 0)
    }

    /// Users' keys are contiguous, so links to them are found by a range test on the key
    /// rather than a lookup; a link outside the range still links nothing, as row by row.
    func testLinksToMissingRowsOfAContiguousTableAreDroppedBothWays() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 400, seed: 3, to: source)
        let db = try Database(path: source, mode: .readWrite)
        let users = try db.scalarInt("SELECT count(*) FROM User")
        XCTAssertEqual(try db.scalarInt("SELECT max(id) - min(id) + 1 FROM User"), users, "the sample's user keys are contiguous")
        let links = try db.scalarInt("SELECT count(*) FROM Book_users")
        try db.execute("INSERT INTO Book_users (source_id, target_id) VALUES (1, \(users + 1)), (2, 0), (3, -7), (9999, 1)")
        db.close()

        // The books v1 → v2 step alone, saying that links to no row are to be dropped.
        let step = try String(contentsOfFile: repositoryPath("Benchmarks/pipelines/books-v1-v2.json"), encoding: .utf8)
        let pipeline = folder.path("books-v1-v2.json")
        try Data(step.replacingOccurrences(of: "\"format\": 1,", with: "\"format\": 1, \"danglingLinks\": \"drop\",")
            .replacingOccurrences(of: "\"../../pipelines/models/", with: "\"\(repositoryPath("pipelines/models"))/").utf8)
            .write(to: URL(fileURLWithPath: pipeline))
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        XCTAssertEqual(pushed.notes.filter { !$0.contains("danglingLinks") }, [], "it ran inside SQLite")
        XCTAssertEqual(pushed.drops.map(\.count), [4], "the four pairs to no row, counted")
        XCTAssertEqual(rows.drops.map(\.count), [4])
        let out = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM Book_users"), links, "the four dangling links are dropped")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM Book_users WHERE target_id NOT IN (SELECT id FROM User)"), 0)
    }

    /// Every translated construct, over source values of every odd storage class SQLite
    /// allows in a column that the reading rule reads exactly (text in integer columns,
    /// blobs of UTF-8 in text ones, dates as ISO text…; what it does not read is in
    /// `ReadingRuleDifferentialTests`),
    /// dangling links, null keys, to-one, inverse and join-table links.
    func testOddValuesAndEveryKindOfLinkGiveTheSameStoreBothWays() throws {
        let (pipeline, source) = try writePetsPipeline(filterKinds: true)
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        XCTAssertEqual(pushed.notes.withoutDanglingLinks, [], "the whole pipeline runs inside SQLite")
        _ = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))

        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        // Spot checks that the comparison compares something.
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Person"), 6, "rows 7 and 10 are inactive with an age")
        XCTAssertEqual(try db.rows("SELECT label FROM Person WHERE id = 2"), [[.text("old")]], "text '42' read as the integer 42")
        XCTAssertEqual(try db.rows("SELECT name FROM Kind ORDER BY id"), [[.text("dog")], [.text("cat")], [.text("A")]],
                       "one per kind, in order of first pet; the blob x'41' read as text")
        XCTAssertEqual(try db.rows("SELECT id FROM Pet WHERE owner_id IS NOT NULL ORDER BY id"), [[.integer(1)], [.integer(2)], [.integer(6)]],
                       "a dangling owner links nothing")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Pet WHERE kind_id IS NOT NULL"), 5, "every pet of a kind")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Person_friends"), 3, "a dangling friend links nothing")
    }

    /// A program's own Swift function runs inside SQLite as well, with the same result.
    func testAnAddedFunctionRunsInsideSQLiteWithTheSameResult() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 800, seed: 3, to: source)
        let pipeline = try folder.pipeline("shout.json", """
            { "format": 1,
              "source": { "store": "\(source)", "model": "MODELS/books-v1.json" },
              "destination": { "store": "\(folder.path("unused.sqlite"))", "model": "MODELS/books-v2.json" },
              "steps": [ { "name": "shout", "drop": ["User.books", "Book.authorName", "Book.fileURL", "Book.users"], "mappings": [
                { "name": "Users", "source": "User", "destination": "User",
                  "attributes": { "userId": "$source.userId", "name": "shout($source.name, $source.userId)" } },
                { "name": "Books", "source": "Book", "destination": "Book",
                  "attributes": { "title": "shout($source.title, 2)", "price": "half($source.price)", "published": "$source.published" } } ] } ] }
            """)
        let shout = ExpressionFunction([.string, .double], returns: .string) { arguments in
            guard case .string(let text) = arguments[0], case .double(let times) = arguments[1] else { return .null }
            return .string(String(repeating: text.uppercased() + "!", count: max(1, min(3, Int(times) % 4))))
        }
        let half = ExpressionFunction([.double], returns: .double) { arguments in
            guard case .double(let value) = arguments[0] else { return .integer(-1) }  // widened to -1.0
            return .double(value / 2)
        }
        var summaries: [RunSummary] = []
        for pushdown in [true, false] {
            var migration = Migration(pipeline: pipeline)
            migration.policies = PolicyRegistry([:], functions: ["shout": shout, "half": half])
            migration.source = source
            migration.destination = folder.path(pushdown ? "pushed.sqlite" : "rows.sqlite")
            migration.pushdown = pushdown
            summaries.append(try migration.run())
        }
        XCTAssertEqual(summaries[0].notes, [], "the step ran inside SQLite")
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        let source1 = try Database(path: source, mode: .readOnly)
        let title = try source1.rows("SELECT title FROM Book WHERE id = 1")[0][0]
        guard case .text(let text) = title else { return XCTFail("no title") }
        XCTAssertEqual(try db.rows("SELECT title FROM Book WHERE id = 1"), [[.text(text.uppercased() + "!" + text.uppercased() + "!")]])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE price = -1.0"),
                       try source1.scalarInt("SELECT count(*) FROM Book WHERE price IS NULL"), "null price: the function's -1")
    }

    // MARK: Steps with a policy

    /// The books v1 → v2 step with Books made by a policy: the attributes in Swift, some
    /// books dropped, one rejected, and pairs of late books merged into one row by a
    /// lookup key (so one Book has two source rows, and the links of both).
    static let booksPolicy = Policy(create: { book, output in
        if book.key == 13 { throw PolicyTests.Unreadable(id: book.key) }
        if book.key % 9 == 0 { return output.removeAll() }
        output.rows[0].values["title"] = book.string("title").map { .string($0.uppercased()) } ?? .null
        output.rows[0].values["price"] = book.double("price").map { .double($0 * 2) } ?? .null
        if book.key > 300 { output.rows[0].uniqueKey = .integer(book.key / 2) }
    })

    func booksPolicyPipeline(relationships: String) throws -> String {
        try folder.booksStepPipeline("books-policy.json", destination: "unused.sqlite", options: #""maxRejects": 5"#, stepName: "books", mappings: """
            { "name": "Users", "source": "User", "destination": "User",
              "attributes": { "userId": "$source.userId", "name": "$source.name" },
              "relationships": { "books": "destinations('Books', $source.books)" } },
            { "name": "Books", "source": "Book", "destination": "Book", "policy": "books",
              "attributes": { "fileURL": "$source.fileURL", "published": "$source.published" },
              "relationships": { \(relationships) } },
            { "name": "Authors", "source": "Book", "destination": "Author",
              "filter": "$source.authorName != null", "uniqueBy": "$source.authorName",
              "attributes": { "name": "$source.authorName" } }
            """)
    }

    /// 700 books and the policy pipeline with both of Books' relationships.
    func booksPolicyStep() throws -> (source: String, pipeline: String) {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 700, seed: 4, to: source)
        let pipeline = try booksPolicyPipeline(relationships: """
            "users": "destinations('Users', $source.users)", "authors": "destinations('Authors', $source)"
            """)
        return (source, pipeline)
    }

    func runBoth(_ pipeline: String, _ policies: [String: Policy], source: String,
                 tuning: EngineTuning = EngineTuning()) throws -> (pushed: RunSummary, rows: RunSummary) {
        var summaries: [RunSummary] = []
        for pushdown in [true, false] {
            var migration = Migration(pipeline: pipeline, policies: policies)
            migration.options.tuning = tuning
            migration.source = source
            migration.destination = folder.path(pushdown ? "pushed.sqlite" : "rows.sqlite")
            migration.pushdown = pushdown
            migration.chunkSize = 7
            summaries.append(try migration.run())
        }
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        // (Not `related`: pushed down it counts links set, not links named; see docs/pipeline.md.)
        for (pushed, rows) in zip(summaries[0].mappings, summaries[1].mappings) {
            XCTAssertEqual([pushed.read, pushed.filtered, pushed.rejected, pushed.written],
                           [rows.read, rows.filtered, rows.rejected, rows.written], pushed.mapping)
        }
        XCTAssertEqual(summaries[1].notes.withoutDanglingLinks, [])
        return (summaries[0], summaries[1])
    }

    /// A policy that drops, rejects and merges rows: SQLite calls it until book 9, which it
    /// drops (`PolicyInSQLite`); the step starts over with only the policy's mapping made
    /// row by row. Its links (from its associations) and the links to its rows
    /// (Users.books) are written inside SQLite, with the same result.
    func testAPolicyMappingIsMadeRowByRowAndTheRestOfTheStepInsideSQLite() throws {
        let (source, pipeline) = try booksPolicyStep()
        let (pushed, _) = try runBoth(pipeline, ["books": Self.booksPolicy], source: source)
        XCTAssertEqual(pushed.notes, ["step books: mapping Books was created row by row (it has a policy, and policy books of mapping Books made no row of Book row 9); the rest of the step ran inside SQLite"])
        let books = pushed.mappings[1]
        XCTAssertEqual(books.rejected, 1, "book 13")
        let kept = 700 - 700 / 9 - 1
        XCTAssertLessThan(books.written, kept - 150, "late books merged in pairs")
        XCTAssertGreaterThan(books.related, 0)
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE title != upper(title)"), 0, "titles made by the policy")
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Author_books"), 0)
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Book_users"), 0)
    }

    static let upperTitles = Policy(create: { book, output in
        output.rows[0].values["title"] = book.string("title").map { .string($0.uppercased()) } ?? .null
    })

    /// A policy that makes one row of every source row (Books from a store with keys 1…n,
    /// all kept): SQLite calls it from the mapping's insert, its rows have their source
    /// rows' keys and their links are found by key, with the same store as row by row. The
    /// last book dropped: the step starts over, the policy row by row, and the rows are
    /// found through the associations again.
    func testAPolicysRowsUnderTheirSourceKeysAreLinkedByKey() throws {
        let (source, pipeline) = try booksPolicyStep()
        let (pushed, _) = try runBoth(pipeline, ["books": Self.upperTitles], source: source)
        XCTAssertEqual(pushed.notes, ["step books: mapping Books's policy books was called by SQLite, one row per source row, each keeping its source row's key"])
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book"), 700)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE title != upper(title)"), 0)
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Author_books"), 600)
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Book_users"), 700)

        // The last book dropped: the others still have their source keys, but not every
        // source row made a row.
        for name in ["pushed.sqlite", "rows.sqlite"] { try FileManager.default.removeItem(atPath: folder.path(name)) }
        let dropLast = Policy(create: { book, output in
            if book.key == 700 { return output.removeAll() }
            output.rows[0].values["title"] = book.string("title").map { .string($0.uppercased()) } ?? .null
        })
        let (dropped, _) = try runBoth(pipeline, ["books": dropLast], source: source)
        XCTAssertEqual(dropped.notes, ["step books: mapping Books was created row by row (it has a policy, and policy books of mapping Books made no row of Book row 700); the rest of the step ran inside SQLite"])
        let after = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try after.scalarInt("SELECT count(*) FROM Book"), 699)
        XCTAssertGreaterThan(try after.scalarInt("SELECT count(*) FROM Book_users"), 700)
    }

    /// The links of a policy's rows are worked out ahead (`AheadWork`) as if every row will
    /// keep its source key, and used when they all did: the same store as row by row either way.
    func testAPolicysLinksWorkedOutAheadAreUsedOnlyWhenItsRowsKeptTheirKeys() throws {
        var tuning = EngineTuning()
        tuning.smallStoreBytes = 0  // every store large enough for the work ahead
        let (source, pipeline) = try booksPolicyStep()
        var events = EngineEvents()
        tuning.observe = events.observe
        _ = try runBoth(pipeline, ["books": Self.upperTitles], source: source, tuning: tuning)
        XCTAssertEqual(events.keysCopiedAhead, 1, "the Authors' keys")
        XCTAssertEqual(events.linksCopiedAhead, 1, "the Author ↔ Book links, found by the kept keys")

        for name in ["pushed.sqlite", "rows.sqlite"] { try FileManager.default.removeItem(atPath: folder.path(name)) }
        let dropLast = Policy(create: { book, output in
            if book.key == 700 { return output.removeAll() }
            output.rows[0].values["title"] = book.string("title").map { .string($0.uppercased()) } ?? .null
        })
        events = EngineEvents()
        tuning.observe = events.observe
        _ = try runBoth(pipeline, ["books": dropLast], source: source, tuning: tuning)
        XCTAssertEqual(events.keysCopiedAhead, 1)
        XCTAssertEqual(events.linksCopiedAhead, 0, "a book was dropped: its links go through the associations")
    }

    /// Besides the declared row, a sequel of every 50th book, of the mapping's own entity.
    static let sequels = Policy(create: { book, output in
        if book.key % 9 == 0 { return output.removeAll() }
        output.rows[0].values["title"] = book.string("title").map { .string($0.uppercased()) } ?? .null
        if book.key % 50 == 1 {
            var sequel = output.rows[0]
            sequel.values["title"] = .string("SEQUEL OF \(book.key)")
            output.rows.append(sequel)
        }
    })

    /// The row a policy leaves of each source row keeps that row's key, as a declared
    /// mapping's rows do (Core Data keeps every Z_PK); the rows it adds take keys above every
    /// kept key, in load order. The same store both ways (the policy's rows made row by row
    /// inside a pushed-down step, and wholly row by row).
    func testAPolicysDeclaredRowsKeepTheirKeysAndItsAddedRowsGoAbove() throws {
        let (source, pipeline) = try booksPolicyStep()
        _ = try runBoth(pipeline, ["books": Self.sequels], source: source)
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        try db.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS src")
        XCTAssertEqual(try db.scalarInt("SELECT max(id) FROM src.Book"), 700)
        let kept = (1...700).filter { $0 % 9 != 0 }
        XCTAssertEqual(try db.rows("SELECT id FROM Book WHERE id <= 700 ORDER BY id"), kept.map { [.integer(Int64($0))] })
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book b JOIN src.Book s ON s.id = b.id WHERE b.title IS upper(s.title)"), Int64(kept.count),
                       "each under its source row's key")
        let sequels = kept.filter { $0 % 50 == 1 }
        XCTAssertEqual(try db.rows("SELECT id, title FROM Book WHERE id > 700 ORDER BY id"),
                       sequels.enumerated().map { [.integer(Int64(701 + $0.offset)), .text("SEQUEL OF \($0.element)")] },
                       "added rows from 701, in source order")
    }

    // MARK: A policy SQLite calls (`PolicyInSQLite`)

    /// A policy giving each book its source title (the pipeline declares none), then doing `more`.
    static func titled(_ more: @escaping @Sendable (PolicySourceRow, inout PolicyOutput) throws -> Void) -> Policy {
        Policy(create: { book, output in
            output.rows[0].values["title"] = book.string("title").map { .string($0) } ?? .null
            try more(book, &output)
        })
    }

    /// A prepared policy (fields by position) that changes a text, a date and a number and
    /// clears one declared value: SQLite calls it from the insert, and the store is the
    /// row-by-row one, value for value (dates through the epoch, nulls, the declared
    /// fileURL it leaves).
    func testAPreparedPolicyCalledBySQLiteWritesTheRowByRowStore() throws {
        let (source, pipeline) = try booksPolicyStep()
        let shift = Policy(prepare: { plan in
            let title = try plan.source("title", as: String.self), price = try plan.source("price", as: Double.self)
            let published = try plan.source("published", as: Date.self)
            let newTitle = try plan.attribute("title", as: String.self), newPrice = try plan.attribute("price", as: Double.self)
            let newPublished = try plan.attribute("published", as: Date.self), fileURL = try plan.attribute("fileURL", as: String.self)
            return { book, output in
                output[newTitle] = book[title].map { "\($0) (\(book.key))" }
                output[newPrice] = book[price].map { $0 / 3 }
                output[newPublished] = book[published].map { $0.addingTimeInterval(0.001) }
                if book.key % 5 == 0 { output[fileURL] = nil }
            }
        })
        let (pushed, rows) = try runBoth(pipeline, ["books": shift], source: source)
        XCTAssertEqual(pushed.notes, ["step books: mapping Books's policy books was called by SQLite, one row per source row, each keeping its source row's key"])
        XCTAssertEqual(rows.notes, [])
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE title LIKE '% (' || id || ')'"), 700)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE id % 5 = 0 AND fileURL IS NOT NULL"), 0)
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Book WHERE fileURL IS NOT NULL"), 0, "the declared fileURL elsewhere")
    }

    /// Each kind of source row only row by row can make, met inside SQLite, starts the
    /// step over with the policy row by row: the note names the policy and the row, and
    /// the store, counts and rejects are those of a run that never tried.
    func testARowThePolicyRejectsMultipliesOrMergesStartsTheStepOverWithThePolicyRowByRow() throws {
        let (source, pipeline) = try booksPolicyStep()
        let cases: [(policy: Policy, reason: String)] = [
            (Self.titled { book, _ in if book.key == 40 { throw PolicyTests.Unreadable(id: book.key) } },
             "policy books of mapping Books rejected Book row 40: "),
            (Self.titled { book, output in if book.key == 41 { output.rows.append(output.rows[0]) } },
             "policy books of mapping Books made 2 rows of Book row 41"),
            (Self.titled { book, output in if book.key >= 42 { output.rows[0].uniqueKey = .integer(book.key / 2) } },
             "policy books of mapping Books made a row with a uniqueKey of Book row 42"),
        ]
        for (policy, reason) in cases {
            for name in ["pushed.sqlite", "rows.sqlite"] where FileManager.default.fileExists(atPath: folder.path(name)) {
                try FileManager.default.removeItem(atPath: folder.path(name))
            }
            let (pushed, _) = try runBoth(pipeline, ["books": policy], source: source)
            XCTAssertEqual(pushed.notes.count, 1)
            XCTAssertTrue(pushed.notes[0].hasPrefix("step books: mapping Books was created row by row (it has a policy, and \(reason)"), pushed.notes[0])
            XCTAssertTrue(pushed.notes[0].hasSuffix("); the rest of the step ran inside SQLite"), pushed.notes[0])
        }
    }

    /// Stopped after the step started over with its policy row by row: the checkpoint says
    /// so, and the resumed run goes on row by row, to the store of a run never stopped.
    func testAStepStartedOverWithItsPolicyRowByRowResumesSo() throws {
        let (source, pipeline) = try booksPolicyStep()
        let dropLate = Self.titled { book, output in if book.key == 650 { output.removeAll() } }
        let cancellation = Cancellation()
        var migration = Migration(pipeline: pipeline, policies: ["books": dropLate])
        migration.source = source
        migration.destination = folder.path("out.sqlite")
        migration.chunkSize = 7
        migration.cancellation = cancellation
        var events = 0
        XCTAssertThrowsError(try migration.run { event in
            // Row by row, Books advances every 7 rows; inside SQLite it never got that far.
            if event.stage == .create && event.mapping == "Books" && event.kind == .advanced {
                events += 1
                if events == 20 { cancellation.cancel() }
            }
        })
        XCTAssertGreaterThanOrEqual(events, 20)
        let checkpoint = try XCTUnwrap(try CheckpointFile(destination: folder.path("out.sqlite")).read())
        XCTAssertEqual(checkpoint.lessons, StepLessons(policiesRowByRow: .policyIrregular(detail: "policy books of mapping Books made no row of Book row 650")))
        migration.cancellation = nil
        let resumed = try migration.run()
        XCTAssertNotNil(resumed.resumed)
        XCTAssertEqual(resumed.notes, ["step books: mapping Books was created row by row (it has a policy, and policy books of mapping Books made no row of Book row 650); the rest of the step ran inside SQLite"])
        var straight = migration
        straight.destination = folder.path("straight.sqlite")
        _ = try straight.run()
        try assertSameStore(folder.path("out.sqlite"), folder.path("straight.sqlite"))
    }

    /// 300 books, the policy pipeline with Authors linked, and the books policy with a
    /// relate hook (which SQL cannot run).
    private func booksWithARelateHook() throws -> (source: String, pipeline: String, hooked: Policy) {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 300, seed: 4, to: source)
        let pipeline = try booksPolicyPipeline(relationships: "\"authors\": \"destinations('Authors', $source)\"")
        var hooked = Self.booksPolicy
        hooked.relate = { row in ["users": try row.destinations("Users", [1])] }
        return (source, pipeline, hooked)
    }

    /// What SQL would not write alike keeps the whole step row by row, and says why. A
    /// to-one to the rows of a policy SQLite calls is written inside SQLite: they keep
    /// their source keys.
    func testAPolicyWithARelateHookKeepsTheStepRowByRowButAToOneToItsRowsDoesNot() throws {
        let (source, pipeline, hooked) = try booksWithARelateHook()
        let (pushed, _) = try runBoth(pipeline, ["books": hooked], source: source)
        XCTAssertEqual(pushed.notes, ["step books ran row by row, not inside SQLite: mapping Books has a policy with a relate hook"])

        for name in ["pushed.sqlite", "rows.sqlite"] { try FileManager.default.removeItem(atPath: folder.path(name)) }
        let (pets, petsSource) = try writePetsPipeline(filterKinds: true, policy: "People")
        let (petsPushed, _) = try runBoth(pets, ["keep": Policy()], source: petsSource)
        XCTAssertEqual(petsPushed.notes.withoutDanglingLinks, ["step people: mapping People's policy keep was called by SQLite, one row per source row, each keeping its source row's key"])
    }

    /// A kept plan's push-down statements are kept per policies (`PlanMemo`): runs of one
    /// plan with another registry decide anew — a relate hook keeps the step row by row —
    /// and a registry seen before gets its own decision again, with the same store.
    func testAKeptPlanDecidesThePushDownForEachPolicyRegistry() throws {
        let (source, pipeline, hooked) = try booksWithARelateHook()
        let plans = PlanCache()
        var notes: [[String]] = []
        for (index, policy) in [Self.booksPolicy, hooked, Self.booksPolicy].enumerated() {
            var migration = Migration(pipeline: pipeline, policies: ["books": policy])
            migration.plans = plans
            migration.source = source
            migration.destination = folder.path("run-\(index).sqlite")
            notes.append(try migration.run().notes)
        }
        XCTAssertEqual(plans.count, 1)
        let rowByRow = "step books: mapping Books was created row by row (it has a policy, and policy books of mapping Books made no row of Book row 9); the rest of the step ran inside SQLite"
        XCTAssertEqual(notes, [[rowByRow], ["step books ran row by row, not inside SQLite: mapping Books has a policy with a relate hook"], [rowByRow]])
        try assertSameStore(folder.path("run-0.sqlite"), folder.path("run-2.sqlite"))
    }

    /// A policy on Pets: its to-one owner written from its associations (GROUP BY its first
    /// source row), and the links of People and Kinds to its rows through them.
    func testEveryKindOfLinkOfAPolicyMappingGivesTheSameStoreBothWays() throws {
        let (pipeline, source) = try writePetsPipeline(filterKinds: true, policy: "Pets")
        let dropTom = Policy(create: { pet, output in if pet.string("name") == "Tom" { output.removeAll() } })
        let (pushed, _) = try runBoth(pipeline, ["keep": dropTom], source: source)
        XCTAssertEqual(pushed.notes.withoutDanglingLinks, ["step people: mapping Pets was created row by row (it has a policy, and policy keep of mapping Pets made no row of Pet row 2); the rest of the step ran inside SQLite"])
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT id, owner_id, kind_id FROM Pet ORDER BY id"),
                       [[.integer(1), .integer(1), .integer(1)], [.integer(4), .null, .integer(2)],
                        [.integer(5), .null, .integer(1)], [.integer(6), .integer(9), .integer(3)]],
                       "Rex, Ghost, Stray and Bird keep their source keys, the policy's rows as any; Tom and Fish are gone")
    }

    /// Two pets merged into one row by the policy's lookup key: the row's to-one owner is its
    /// first source row's (Rex's, not Bird's), as row by row.
    func testAToOneOfAPolicyRowMadeOfTwoSourceRowsIsTheFirstRowsBothWays() throws {
        let (pets, source) = try writePetsPipeline(filterKinds: true, policy: "Pets")
        // Only Pets.owner writes the key column (People.pets would set it first).
        let json = try String(contentsOfFile: pets, encoding: .utf8)
        XCTAssertTrue(json.contains("\"pets\": \"destinations('Pets', $source.pets)\","))
        let pipeline = try folder.pipeline("pets-owner.json", json.replacingOccurrences(of: "\"pets\": \"destinations('Pets', $source.pets)\",", with: ""))
        let merge = Policy(create: { pet, output in
            if ["Bird", "Rex"].contains(pet.string("name")) { output.rows[0].uniqueKey = .string("Rex and Bird") }
        })
        _ = try runBoth(pipeline, ["keep": merge], source: source)
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT owner_id FROM Pet WHERE name = 'Rex'"), [[.integer(1)]])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Pet WHERE name = 'Bird'"), 0)
    }

    /// A stop inside the policy's rows and one inside the links: both resume to the store of
    /// a run that never stopped.
    func testAStepWithAPolicyResumesInsideEitherPart() throws {
        let (source, pipeline) = try booksPolicyStep()
        // (Books linked through their associations, then by key.)
        for policy in [Self.booksPolicy, Self.upperTitles, Self.sequels] {
            for (stage, mapping) in [(Stage.create, "Books"), (Stage.relate, "Users")] {
                let cancellation = Cancellation()
                var migration = Migration(pipeline: pipeline, policies: ["books": policy])
                migration.source = source
                migration.destination = folder.path("out.sqlite")
                migration.replace = .force
                migration.chunkSize = 7
                migration.cancellation = cancellation
                var stopped = false
                XCTAssertThrowsError(try migration.run { event in
                    if event.stage == stage && event.mapping == mapping && event.kind == .advanced { stopped = true; cancellation.cancel() }
                }) { error in
                    guard case MigrationError.interrupted = error else { return XCTFail("\(error)") }
                }
                XCTAssertTrue(stopped, "stopped in \(stage) \(mapping)")
                migration.cancellation = nil
                let resumed = try migration.run()
                XCTAssertNotNil(resumed.resumed)
                var straight = migration
                straight.destination = folder.path("straight.sqlite")
                _ = try straight.run()
                try assertSameStore(folder.path("out.sqlite"), folder.path("straight.sqlite"))
            }
        }
    }

    func testANullUniqueByKeyKeepsTheStepRowByRow() throws {
        let (pipeline, source) = try writePetsPipeline(filterKinds: false)
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        XCTAssertEqual(pushed.notes.withoutDanglingLinks, ["step people ran row by row, not inside SQLite: mapping Kinds has rows whose uniqueBy key is null"])
        _ = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
    }

    func testAResumeWithOtherPushdownOptionsIsRefused() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 600, seed: 2, to: source)
        let cancellation = Cancellation()
        var migration = booksMigration(source: source, destination: folder.path("out.sqlite"), chunkSize: 1)
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.stage == .create && event.mapping == "Books" && event.done > 200 { cancellation.cancel() }
        })
        migration.cancellation = nil
        migration.pushdown = false
        assertMigrationError(try migration.run(), contains: ["without --no-pushdown", "give the same options"])
        migration.pushdown = true
        _ = try migration.run()
        try migrateBooks(source: source, destination: folder.path("straight.sqlite"))
        try assertSameStore(folder.path("out.sqlite"), folder.path("straight.sqlite"))
    }

    // MARK: The pets pipeline

    /// Writes the models, a source store full of odd values and the pipeline.
    /// - Parameter policy: the mapping that names the policy "keep".
    func writePetsPipeline(filterKinds: Bool, policy: String? = nil) throws -> (pipeline: String, source: String) {
        let v1 = """
            { "version": "pets-v1", "entities": [
              { "name": "Person", "attributes": [
                  { "name": "name", "type": "string" }, { "name": "age", "type": "integer16" },
                  { "name": "height", "type": "double" }, { "name": "born", "type": "date" },
                  { "name": "active", "type": "boolean" }, { "name": "photo", "type": "binary" } ],
                "relationships": [
                  { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true },
                  { "name": "friends", "destination": "Person", "toMany": true } ] },
              { "name": "Pet", "attributes": [
                  { "name": "name", "type": "string" }, { "name": "kind", "type": "string" },
                  { "name": "weight", "type": "double" } ],
                "relationships": [ { "name": "owner", "destination": "Person", "inverse": "pets" } ] } ] }
            """
        let v2 = """
            { "version": "pets-v2", "entities": [
              { "name": "Person", "attributes": [
                  { "name": "name", "type": "string" }, { "name": "span", "type": "double" },
                  { "name": "label", "type": "string" }, { "name": "born", "type": "date" },
                  { "name": "active", "type": "boolean" }, { "name": "photo", "type": "binary" },
                  { "name": "years", "type": "double" }, { "name": "note", "type": "string", "default": "none" } ],
                "relationships": [
                  { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true },
                  { "name": "friends", "destination": "Person", "toMany": true } ] },
              { "name": "Pet", "attributes": [
                  { "name": "name", "type": "string" }, { "name": "weight", "type": "double" },
                  { "name": "heavy", "type": "boolean" } ],
                "relationships": [
                  { "name": "owner", "destination": "Person", "inverse": "pets" },
                  { "name": "kind", "destination": "Kind", "inverse": "pets" } ] },
              { "name": "Kind", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "pets", "destination": "Pet", "inverse": "kind", "toMany": true } ] } ] }
            """
        try Data(v1.utf8).write(to: URL(fileURLWithPath: folder.path("pets-v1.json")))
        try Data(v2.utf8).write(to: URL(fileURLWithPath: folder.path("pets-v2.json")))

        let source = folder.path("pets.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: try ModelFile.load(path: folder.path("pets-v1.json"))).schemaSQL() { try db.execute(sql) }
        try db.execute("""
            INSERT INTO Person (id, name, age, height, born, active, photo) VALUES
              (1, 'Ann', 30, 1.5, 0.5, 1, x'00ff'),
              (2, 'Bob', '42', 170, '2020-01-02T03:04:05Z', '1', 'text photo'),
              (3, 12, 3.0, '150.5', 86400, 1, NULL),
              (5, x'4142', '7', 2.5, -1.25, 1.0, 'seven'),
              (6, NULL, NULL, NULL, NULL, NULL, NULL),
              (7, 1.5, 9223372036854775807, -0.0, '2021-03-04', '0', x''),
              (9, 'Zoe', -40, 2.25, 1e9, 1, 'x'),
              (10, 'Inactive', 50, 1.0, 1.0, 0, NULL);
            INSERT INTO Pet (id, name, kind, weight, owner_id) VALUES
              (1, 'Rex', 'dog', 12.5, 1), (2, 'Tom', 'cat', 4, 1), (3, 'Fish', NULL, 0.1, 2),
              (4, 'Ghost', 'cat', '10.5', 999), (5, 'Stray', 'dog', NULL, NULL), (6, 'Bird', x'41', 1, 9);
            INSERT INTO Person_friends (source_id, target_id) VALUES (1, 2), (1, 3), (2, 1), (2, 404), (10, 1);
            """)
        db.close()

        let kindsFilter = filterKinds ? "\"filter\": \"$source.kind != null && $source.kind != 'x'\"," : ""
        // The pets hold links to no row on purpose: dropped (and counted) as the pipeline says.
        let pipeline = try folder.pipeline("pets.json", """
            { "format": 1, "danglingLinks": "drop",
              "source": { "store": "\(source)", "model": "\(folder.path("pets-v1.json"))" },
              "destination": { "store": "\(folder.path("unused.sqlite"))", "model": "\(folder.path("pets-v2.json"))" },
              "steps": [ { "name": "people", "mappings": [
                { "name": "People", "source": "Person", "destination": "Person", \(policy == "People" ? "\"policy\": \"keep\"," : "")
                  "filter": "!($source.active == false) || $source.age == null",
                  "attributes": {
                    "name": "coalesce($source.name, 'nobody')",
                    "span": "$source.height * 2.5 - 1.0",
                    "label": "if($source.age > 30, 'old', if($source.age == null, 'unknown', 'young'))",
                    "born": "$source.born", "active": "$source.active", "photo": "$source.photo",
                    "years": "coalesce($source.age, $source.height)" },
                  "relationships": {
                    "pets": "destinations('Pets', $source.pets)",
                    "friends": "destinations('People', $source.friends)" } },
                { "name": "Pets", "source": "Pet", "destination": "Pet", \(policy == "Pets" ? "\"policy\": \"keep\"," : "")
                  "filter": "$source.name != 'Fish'",
                  "attributes": { "name": "$source.name", "weight": "$source.weight", "heavy": "$source.weight >= 10.5" },
                  "relationships": { "owner": "destination('People', $source.owner)" } },
                { "name": "Kinds", "source": "Pet", "destination": "Kind", \(kindsFilter)
                  "uniqueBy": "$source.kind",
                  "attributes": { "name": "$source.kind" },
                  "relationships": { "pets": "destinations('Pets', $source)" } } ] } ] }
            """)
        return (pipeline, source)
    }
}

extension Array where Element == String {
    /// The notes but those of links to no row the pets' pipeline drops (`"danglingLinks": "drop"`).
    var withoutDanglingLinks: [String] { filter { !$0.contains("as the pipeline's \"danglingLinks\" says") } }
}
