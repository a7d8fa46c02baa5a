import XCTest
import ETLStore
import ETL
import ETLExpression
@testable import ETLEngine

/// Given a pipeline of two steps whose second step reads the first step's rows only as the
/// first step wrote them, when it runs, then the two steps run as one (`StepFusion`) from
/// the first step's source, and the store is the one the steps give one after the other
/// (`--separate-steps`); where the pipeline or the source makes that unsure, they run apart.
final class StepFusionTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!

    override func setUpWithError() throws {
        (folder, source, _) = try givenBooksStore(rows: 3000, seed: 7)
    }

    override func tearDown() { folder = nil }

    /// The books pipeline into `name`, fused where it can be (or not), with its progress events.
    func run(into name: String, fuse: Bool = true, pipeline: String = repositoryPath("pipelines/books.json"),
             maxRejects: Int? = nil, smallStoreBytes: Int64 = EngineTuning().smallStoreBytes) throws -> (summary: RunSummary, events: [ProgressEvent]) {
        var migration = booksMigration(source: source, destination: folder.path(name), chunkSize: 400, pipeline: pipeline)
        migration.options.tuning.smallStoreBytes = smallStoreBytes
        migration.options.fuseSteps = fuse
        migration.options.maxRejects = maxRejects
        let events = Recorded<ProgressEvent>()
        let summary = try migration.run { events.list.append($0) }
        return (summary, events.list)
    }

    func testTheBooksPipelineRunsAsOneStepAndWritesTheStoreOfItsTwoSteps() throws {
        let fused = try run(into: "fused.sqlite")
        let apart = try run(into: "apart.sqlite", fuse: false)
        try assertSameStore(folder.path("fused.sqlite"), folder.path("apart.sqlite"))
        XCTAssertEqual(Set(fused.events.map(\.stepCount)), [1], "one step ran")
        XCTAssertEqual(Set(apart.events.map(\.stepCount)), [2])
        XCTAssertEqual(Set(fused.summary.mappings.map(\.step)), ["v1 to v2 + v2 to v3"])
        XCTAssertEqual(fused.summary.mappings.map(\.mapping), ["Users", "Authors", "Books", "Files"])
        XCTAssertTrue(fused.summary.notes.contains("steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"),
                      "\(fused.summary.notes)")
        XCTAssertFalse(apart.summary.notes.contains { $0.contains("ran as one") })
        // The rows the second step wrote, counted alike.
        func written(_ summary: RunSummary, _ mapping: String) -> Int { summary.mappings.last { $0.mapping == mapping }!.written }
        for mapping in ["Users", "Authors", "Books", "Files"] {
            XCTAssertEqual(written(fused.summary, mapping), written(apart.summary, mapping), mapping)
        }
    }

    func testAFusedStepStoppedInItsForEachResumesToTheStoreOfTheStepsApart() throws {
        var migration = booksMigration(source: source, destination: folder.path("resumed.sqlite"), chunkSize: 5)
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.mapping == "Files", event.stage == .create, event.total > 0, event.done * 2 >= event.total { cancellation.cancel() }
        })
        let checkpoint = try XCTUnwrap(CheckpointFile(destination: folder.path("resumed.sqlite")).read())
        XCTAssertEqual(checkpoint.steps, ["v1 to v2 + v2 to v3"])
        XCTAssertEqual(checkpoint.mappingName, "Files")
        migration.cancellation = nil
        let resumed = try migration.run()
        XCTAssertNotNil(resumed.resumed)
        _ = try run(into: "apart.sqlite", fuse: false)
        try assertSameStore(folder.path("resumed.sqlite"), folder.path("apart.sqlite"))
    }

    func testNegativeKeysGiveTheSameStoreFusedAsApart() throws {
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE Book SET id = -id; UPDATE User SET id = -id; UPDATE Book_users SET source_id = -source_id, target_id = -target_id")
        db.close()
        let fused = try run(into: "fused.sqlite")
        _ = try run(into: "apart.sqlite", fuse: false)
        XCTAssertEqual(Set(fused.events.map(\.stepCount)), [1])
        try assertSameStore(folder.path("fused.sqlite"), folder.path("apart.sqlite"))
    }

    func testTheFusedMappingsReadTheFirstStepsSourceRows() throws {
        let plan = try booksMigration(source: source, destination: folder.path("x.sqlite")).plan()
        let fused = try XCTUnwrap(plan.fusedSteps?.first)
        XCTAssertEqual(plan.fusedSteps?.count, 1)
        XCTAssertEqual(fused.fusedFrom.map(\.name), ["v1 to v2", "v2 to v3"])
        XCTAssertEqual(fused.sourceModel.version, "books-v1")
        XCTAssertEqual(fused.destinationModel.version, "books-v3")
        let mappings = try XCTUnwrap(fused.written?.mappings)
        func mapping(_ name: String) -> MappingSpec { mappings.first { $0.name == name }! }
        // Authors: grouped by the first step's uniqueBy over books, named from it.
        XCTAssertEqual(mapping("Authors").source, "Book")
        XCTAssertEqual(mapping("Authors").uniqueBy?.text, "$source.authorName")
        XCTAssertEqual(mapping("Authors").filter?.text, "$source.authorName != null")
        XCTAssertEqual(mapping("Authors").attributes.map(\.expression.text), ["$source.authorName"])
        // Books' authors: the first step's lookup argument, under the second step's mapping name.
        XCTAssertEqual(mapping("Books").relationships.map(\.expression.text), ["destinations('Authors', $source)"])
        // Files: one per (book, user) pair of the source's own relationship.
        XCTAssertEqual(mapping("Files").forEach?.text, "$source.users")
        XCTAssertEqual(mapping("Files").filter?.text, "$source.fileURL != null")
        XCTAssertEqual(mapping("Files").relationships.map(\.expression.text), ["destination('Books', $source)", "destination('Users', $item)"])
        XCTAssertEqual(plan.steps.count, 2, "the steps as written stay in the plan")
    }

    /// A pipeline like books.json whose first step's `replace` is put in for the first match of `original`.
    func pipeline(replacing original: String, with replacement: String) throws -> String {
        let text = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
        XCTAssertTrue(text.contains(original))
        let changed = text.replacingOccurrences(of: "\"models/", with: "\"MODELS/")
            .replacingOccurrences(of: "../data/books-v1.sqlite", with: source)
            .replacingOccurrences(of: original, with: replacement)
        return try folder.pipeline("changed.json", changed)
    }

    func testAStepThatComputesAValueOnTheWayIsNotFusedAndThePlanSaysWhy() throws {
        let changed = try pipeline(replacing: "\"price\": \"$source.price\"", with: "\"price\": \"$source.price * 2\"")
        let plan = try booksMigration(source: source, destination: folder.path("x.sqlite"), pipeline: changed).plan()
        XCTAssertNil(plan.fusedSteps)
        XCTAssertEqual(plan.fusionRefusals.count, 1)
        XCTAssertTrue(plan.fusionRefusals[0].contains("steps v1 to v2 and v2 to v3 run one after the other: '$source.price * 2' of mapping Books converts or computes"),
                      plan.fusionRefusals[0])
        let (summary, events) = try run(into: "x.sqlite", pipeline: changed)
        XCTAssertEqual(Set(events.map(\.stepCount)), [2])
        XCTAssertFalse(summary.notes.contains { $0.contains("ran as one") })
    }

    func testAReadTheFirstStepDoesNotDetermineIsNotFused() throws {
        // The second step's Books read v2 titles; the first step leaves them null (v2 has no
        // default), which the fused step could read as a literal: it is the title the first
        // step leaves unread that keeps them apart, counted in that step's own source.
        let changed = try pipeline(replacing: "\"title\": \"$source.title\", \"fileURL\"", with: "\"fileURL\"")
        let plan = try booksMigration(source: source, destination: folder.path("x.sqlite"), pipeline: changed).plan()
        XCTAssertNil(plan.fusedSteps)
        XCTAssertEqual(plan.fusionRefusals, ["steps v1 to v2 and v2 to v3 run one after the other: step v1 to v2 removes Book.title, counted in its own source"])
    }

    func testABlobTheFirstStepRejectsKeepsTheStepsApartAndTheRowIsRejectedAsByThem() throws {
        let db = try Database(path: source, mode: .readWrite)
        // Not text, not UTF-8: the first step rejects the row; the second step never reads fileURL of the File rows' books… but Files does.
        try db.execute("UPDATE Book SET fileURL = x'00ff80' WHERE id = 17")
        db.close()
        let tried = try run(into: "tried.sqlite", maxRejects: 5)
        let apart = try run(into: "apart.sqlite", fuse: false, maxRejects: 5)
        try assertSameStore(folder.path("tried.sqlite"), folder.path("apart.sqlite"))
        XCTAssertEqual(Set(tried.summary.mappings.map(\.step)), ["v1 to v2", "v2 to v3"])
        XCTAssertTrue(tried.summary.notes.contains("steps v1 to v2 and v2 to v3 ran one after the other: step v1 to v2 reads Book.fileURL of row 17 as a value of another type, which it converts or rejects"),
                      "\(tried.summary.notes)")
        XCTAssertEqual(tried.summary.mappings.reduce(0) { $0 + $1.rejected }, apart.summary.mappings.reduce(0) { $0 + $1.rejected })
        XCTAssertGreaterThan(apart.summary.mappings.reduce(0) { $0 + $1.rejected }, 0)
    }

    func testALinkToARowThatIsNotThereKeepsTheStepsApart() throws {
        // The first step's lookup destinations('Users', $source.users) skips the link to user 3;
        // Files' forEach over $source.users, fused, would make a File of it with no user.
        let db = try Database(path: source, mode: .readWrite)
        XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM Book_users j JOIN Book b ON b.id = j.source_id WHERE j.target_id = 3 AND b.fileURL IS NOT NULL"), 0)
        try db.execute("DELETE FROM User WHERE id = 3")
        db.close()
        // (Each link to user 3 is a reject of the first step, issue 45: allowed here.)
        let tried = try run(into: "tried.sqlite", maxRejects: 1_000)
        let apart = try run(into: "apart.sqlite", fuse: false, maxRejects: 1_000)
        try assertSameStore(folder.path("tried.sqlite"), folder.path("apart.sqlite"))
        XCTAssertGreaterThan(apart.summary.mappings.reduce(0) { $0 + $1.rejected }, 0)
        XCTAssertEqual(tried.summary.mappings.reduce(0) { $0 + $1.rejected }, apart.summary.mappings.reduce(0) { $0 + $1.rejected })
        XCTAssertTrue(tried.summary.notes.contains("steps v1 to v2 and v2 to v3 ran one after the other: the source holds a link of Book.users to a User row that is not there, which the first step's lookup skips"),
                      "\(tried.summary.notes)")
    }

    /// Checked beside the run (a source too big for `SmallStore`): the fused step makes its
    /// rows before it learns the steps must run apart, and the run starts over apart.
    func testAnObjectionFoundBesideTheFusedRunStartsItOverWithTheStepsApart() throws {
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE Book SET fileURL = x'00ff80' WHERE id = 2900")
        db.close()
        let tried = try run(into: "tried.sqlite", maxRejects: 5, smallStoreBytes: 0)
        _ = try run(into: "apart.sqlite", fuse: false, maxRejects: 5, smallStoreBytes: 0)
        try assertSameStore(folder.path("tried.sqlite"), folder.path("apart.sqlite"))
        XCTAssertTrue(tried.events.contains { $0.stepCount == 1 && $0.stage == .create }, "the fused step started")
        XCTAssertEqual(Set(tried.summary.mappings.map(\.step)), ["v1 to v2", "v2 to v3"])
        XCTAssertTrue(tried.summary.notes.contains { $0.hasPrefix("steps v1 to v2 and v2 to v3 ran one after the other: step v1 to v2 reads Book.fileURL of row 2900") },
                      "\(tried.summary.notes)")
        XCTAssertEqual(try folder.files().filter { $0.hasPrefix("tried") }, ["tried.sqlite", "tried.sqlite.rejects.jsonl.zst"].filter { FileManager.default.fileExists(atPath: folder.path($0)) },
                       "no file of the fused run is left")
    }

    func testANullTheStoreBetweenWouldRefuseKeepsTheStepsApartSoTheRunFailsAsTheirs() throws {
        // Without its filter, the first step's Authors groups books without an author under a
        // null key; the first step's store requires Author.name.
        let changed = try pipeline(replacing: "\"filter\": \"$source.authorName != null\",", with: "")
        XCTAssertNotNil(try booksMigration(source: source, destination: folder.path("x.sqlite"), pipeline: changed).plan().fusedSteps)
        var failures: [String] = []
        for fuse in [true, false] {
            do {
                _ = try run(into: "\(fuse).sqlite", fuse: fuse, pipeline: changed)
                XCTFail("a null uniqueBy key or a missing Author.name fails the first step")
            } catch {
                failures.append("\(error)")
            }
        }
        XCTAssertEqual(failures[0], failures[1])
        XCTAssertTrue(failures[0].contains("v1 to v2"), failures[0])
    }
}
