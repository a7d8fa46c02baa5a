import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression
import ETL

/// A step whose input fits in one chunk keeps its checkpoints inside the step in memory:
/// a kill redoes at most that chunk anyway (the kill test of a small store proves the
/// result the same), a stop writes the last position reached, and a larger step still
/// writes a checkpoint after each chunk.
final class OneChunkStepTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Runs books v1 → v3 over a store of `rows` books in chunks of `chunkSize`; returns,
    /// for each step as it starts validating, the checkpoint on disk (nil: none).
    /// - Parameter stopInStepOne: the run is first stopped as step 1 validates (which writes
    ///   its checkpoint), then resumed: the positions are the resumed run's.
    func checkpointsBeforeValidation(rows: Int, chunkSize: Int, stopInStepOne: Bool = false) throws -> [Checkpoint.Position?] {
        let source = folder.path("v1-\(rows).sqlite")
        try BooksSample.write(rows: rows, seed: 5, to: source)
        let destination = folder.path("v3-\(rows)-\(chunkSize).sqlite")
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = destination
        let plan = try migration.plan()
        var options = RunOptions(chunkSize: chunkSize, workers: 1)
        options.fuseSteps = false  // the checkpoint between the two steps
        if stopInStepOne {
            var stopped = options
            let cancellation = Cancellation()
            stopped.cancellation = cancellation
            XCTAssertThrowsError(try Engine(plan: plan, options: stopped).run { event in
                if event.step == 1, event.stage == .validate, event.kind == .started { cancellation.cancel() }
            })
            XCTAssertEqual(try CheckpointFile(destination: destination).read()?.position.stage, .validate)
        }
        let seen = Recorded<Checkpoint.Position?>()
        options.beforeValidation = { _ in seen.list.append(try CheckpointFile(destination: destination).read()?.position) }
        _ = try Engine(plan: plan, options: options).run()
        return seen.list
    }

    func testAStepWithinOneChunkWritesNoCheckpointInsideIt() throws {
        // Given 20 books, every table of each step's input together within a chunk of 1000…
        let small = try checkpointsBeforeValidation(rows: 20, chunkSize: 1000)
        // …neither step left a checkpoint: with none of the run on disk, the start of step 2
        // is kept in memory too (a kill starts the run over, from files it makes anew).
        XCTAssertEqual(small.count, 2)
        XCTAssertNil(small[0] ?? nil)
        XCTAssertNil(small[1] ?? nil)
    }

    func testAResumedRunWritesTheStartOfTheNextStep() throws {
        // Given the same small run, stopped in step 1 (its checkpoint on disk) and resumed…
        let resumed = try checkpointsBeforeValidation(rows: 20, chunkSize: 1000, stopInStepOne: true)
        // …step 2 starts from a checkpoint written (not only kept in memory), though not
        // synced: a kill in step 2 must not resume step 1 from the older one, which points
        // into the work database step 2 rewrites.
        XCTAssertEqual(resumed.count, 2)
        let second = try XCTUnwrap(resumed[1] ?? nil)
        XCTAssertEqual(second.step, 1)
        XCTAssertTrue(second.isStartOfStep, "\(second)")
    }

    func testAStepLargerThanAChunkStillCheckpointsEachChunk() throws {
        // Given the same 20 books in chunks of 5, when each step validates…
        let large = try checkpointsBeforeValidation(rows: 20, chunkSize: 5)
        // …the checkpoint is past the step's start in both.
        XCTAssertEqual(large.count, 2)
        for (index, position) in large.enumerated() {
            let position = try XCTUnwrap(position ?? nil, "step \(index + 1)")
            XCTAssertEqual(position.step, index)
            XCTAssertFalse(position.isStartOfStep, "step \(index + 1): \(position)")
        }
    }

    func testAStopInsideAStepWithinOneChunkWritesTheLastPositionReached() throws {
        // Given a small store whose first step fits in one chunk…
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 20, seed: 5, to: source)
        let destination = folder.path("v3.sqlite")
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = destination
        let reference = folder.path("reference.sqlite")
        var uninterrupted = migration
        uninterrupted.destination = reference
        _ = try uninterrupted.run()
        // …when a stop is asked as step 1 validates…
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.step == 1, event.stage == .validate, event.kind == .started { cancellation.cancel() }
        }) { error in
            guard case MigrationError.interrupted = error else { return XCTFail("\(error)") }
        }
        // …the checkpoint says so (kept in memory until then), and the rerun resumes there
        // to the same store as an uninterrupted run.
        let position = try XCTUnwrap(try CheckpointFile(destination: destination).read()?.position)
        XCTAssertEqual(position.step, 0)
        XCTAssertEqual(position.stage, .validate)
        migration.cancellation = nil
        XCTAssertEqual(try migration.run().resumed?.stage, .validate)
        try assertSameStore(destination, reference)
    }

    /// `RunOptions.beforeInstall` runs once, after validation and before anything is put in
    /// place (`etl batch --out` waits there for its manifest's `started` entry); one that
    /// throws fails the run with nothing installed, and the rerun installs.
    func testBeforeInstallRunsBeforeTheRenameAndAThrowLeavesNoResult() throws {
        var migration = try smallRun(into: "hooked.sqlite", chunkSize: 1000)
        let destination = migration.destination!
        let calls = Counter()
        struct NotDurable: Error {}
        migration.options.beforeInstall = {
            calls.add()
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "called before the rename")
            XCTAssertTrue(FileManager.default.fileExists(atPath: destination + ".etl-tmp"), "called once the result is built")
            throw NotDurable()
        }
        XCTAssertThrowsError(try migration.run())
        XCTAssertEqual(calls.value, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        migration.options.beforeInstall = { calls.add() }
        XCTAssertNoThrow(try migration.run())
        XCTAssertEqual(calls.value, 2)
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination))
    }

    /// A count shared with a `@Sendable` closure.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }

    /// The books pipeline over a store of 20 books (seed 5) into `destination` (in the test's
    /// folder), in chunks of `chunkSize`: with chunks of 1000, every step within one chunk.
    func smallRun(into destination: String, chunkSize: Int) throws -> Migration {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 20, seed: 5, to: source)
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = folder.path(destination)
        migration.options.chunkSize = chunkSize
        return migration
    }

    /// The checkpoint on disk as the run starts to install its destination, for a run of 20
    /// books (steps within one chunk) told that its caller records the install
    /// (`RunOptions.installRecordedByCaller`), with a destination there before (`force`) or not.
    func checkpointAtFinalize(recordedByCaller: Bool, destinationThere: Bool, chunkSize: Int = 1000) throws -> Checkpoint.Position? {
        var migration = try smallRun(into: "v3-\(recordedByCaller)-\(destinationThere)-\(chunkSize).sqlite", chunkSize: chunkSize)
        let destination = migration.destination!
        if destinationThere { try BooksSample.write(rows: 3, seed: 6, to: destination) }
        migration.replace = destinationThere ? .force : .refuse
        migration.options.installRecordedByCaller = recordedByCaller
        let seen = Recorded<Checkpoint.Position?>()
        _ = try migration.run { event in
            guard event.stage == .finalize, event.kind == .started else { return }
            seen.list.append(try? CheckpointFile(destination: destination).read()?.position)
        }
        XCTAssertEqual(seen.list.count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: CheckpointFile(destination: destination).path), "removed at the end")
        return seen.list.first ?? nil
    }

    func testARunWhoseCallerRecordsTheInstallWritesNoFinalizeCheckpointForANewDestination() throws {
        // Given a small run that wrote no checkpoint, installing where nothing was…
        // …it writes none before the rename when its caller records the install (etl batch --out)…
        XCTAssertNil(try checkpointAtFinalize(recordedByCaller: true, destinationThere: false))
        // …and the durable finalize checkpoint otherwise: alone (etl run), a rerun after a
        // kill past the rename must know the destination for its own;
        XCTAssertEqual(try checkpointAtFinalize(recordedByCaller: false, destinationThere: false)?.stage, .finalize)
        // replacing a destination, the checkpoint is what tells the rerun which store is whose;
        XCTAssertEqual(try checkpointAtFinalize(recordedByCaller: true, destinationThere: true)?.stage, .finalize)
        // with chunks on disk already, a crash must not take the run back past them.
        XCTAssertEqual(try checkpointAtFinalize(recordedByCaller: true, destinationThere: false, chunkSize: 5)?.stage, .finalize)
    }

    /// The journals beside a step's store and its work database as the step validates, for a
    /// run of 20 books in chunks of `chunkSize`.
    func journalsBeforeValidation(chunkSize: Int) throws -> [Bool] {
        var migration = try smallRun(into: "v3-\(chunkSize).sqlite", chunkSize: chunkSize)
        let destination = migration.destination!
        let seen = Recorded<Bool>()
        migration.options.beforeValidation = { _ in
            for file in [".etl-tmp-journal", ".etl-work-journal"] { seen.list.append(FileManager.default.fileExists(atPath: destination + file)) }
        }
        _ = try migration.run()
        return seen.list
    }

    func testAStepWithinOneChunkOfARunWithNoCheckpointKeepsItsJournalsInMemory() throws {
        // Given 20 books in one chunk, no rerun reads the step's files (a kill starts over):
        // no journal file is made beside them…
        XCTAssertEqual(try journalsBeforeValidation(chunkSize: 1000), [false, false])
        // …in chunks of 5, a rerun resumes from them: each commit is journalled on disk.
        XCTAssertEqual(try journalsBeforeValidation(chunkSize: 5), [true, true])
    }

    struct Failure: Error {}

    /// The checkpoint left by a run of 20 books in chunks of `chunkSize` that fails as its step
    /// validates (as a full disk would fail it).
    func checkpointAfterAFailure(chunkSize: Int) throws -> Checkpoint.Position? {
        var migration = try smallRun(into: "v3-failed-\(chunkSize).sqlite", chunkSize: chunkSize)
        migration.options.beforeValidation = { _ in throw Failure() }
        XCTAssertThrowsError(try migration.run()) { XCTAssertTrue($0 is Failure, "\($0)") }
        return try CheckpointFile(destination: migration.destination!).read()?.position
    }

    func testAFailureInAStepWhoseJournalsAreInMemoryLeavesNoCheckpointIntoItsFiles() throws {
        // Given a step within one chunk, its journals in memory, a failure in it (a full disk
        // in a commit can leave its files half written, with no journal to roll them back)
        // leaves no checkpoint: the rerun starts over from files it makes anew…
        XCTAssertNil(try checkpointAfterAFailure(chunkSize: 1000))
        // …while in chunks of 5, journalled on disk, the position reached is kept.
        XCTAssertEqual(try checkpointAfterAFailure(chunkSize: 5)?.stage, .validate)
    }

    /// The plain indexes of the store a run of 20 books in chunks of `chunkSize` builds, as its
    /// create stage starts.
    func indexesAsTheCreateStageStarts(chunkSize: Int) throws -> [String] {
        let migration = try smallRun(into: "v3-indexes-\(chunkSize).sqlite", chunkSize: chunkSize)
        let destination = migration.destination!
        let seen = Recorded<[String]>()
        _ = try migration.run { event in
            guard event.stage == .create, event.kind == .started, seen.list.isEmpty else { return }
            let names = try? Database(path: destination + ".etl-tmp", mode: .readOnly)
                .rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map { $0[0].sqlLiteral }
            seen.list.append(names ?? ["unreadable"])
        }
        let written = try Database(path: destination, mode: .readOnly)
        let final = try written.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map { $0[0].sqlLiteral }
        XCTAssertFalse(final.isEmpty)
        XCTAssertEqual(seen.list.count, 1)
        // The store is the same either way: its indexes are the layout's.
        XCTAssertTrue(Set(seen.list.first ?? []).isSubset(of: Set(final)), "\(seen.list) ⊄ \(final)")
        return seen.list.first ?? []
    }

    func testASmallStepsStoreStartsWithItsIndexesALargeOnesGetsThemAfterItsRows() throws {
        // Given 20 books in one chunk, the store starts with its plain indexes (made with the
        // empty store, not built after the rows, each a statement and a schema change)…
        XCTAssertFalse(try indexesAsTheCreateStageStarts(chunkSize: 1000).isEmpty)
        // …in chunks of 5 they are built once the rows are in, from sorted keys.
        XCTAssertEqual(try indexesAsTheCreateStageStarts(chunkSize: 5), [])
    }

    func testOnlyAStoreOfAtMostOneChunkOfRowsHoldsInOneChunk() throws {
        let path = folder.path("rows.sqlite")
        let db = try Database(path: path, mode: .create)
        try db.execute("CREATE TABLE a(x); CREATE TABLE b(y); INSERT INTO a VALUES (1), (2), (3); INSERT INTO b VALUES (4), (5)")
        // Five rows over two tables: within a chunk of five, not of four.
        XCTAssertTrue(try OneChunkStep.holds(db, chunkSize: 5))
        XCTAssertFalse(try OneChunkStep.holds(db, chunkSize: 4))
    }
}
