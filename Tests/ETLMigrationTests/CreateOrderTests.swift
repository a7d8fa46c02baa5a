import XCTest
import ETLStore
import ETL
import ETLExpression
@testable import ETLEngine

/// Given a step whose uniqueBy mapping comes before other mappings, when it runs, then its
/// rows are created after the others' (`StepPlan.createOrder`: its keys are worked out on
/// the second core meanwhile), the store is the same as in the plan's order, and a stop, or
/// a resume from an older checkpoint, in a mapping created before it loses nothing.
final class CreateOrderTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    var reference: String!

    override func setUpWithError() throws {
        (folder, source, _) = try givenBooksStore(rows: 600, seed: 5)
        // The two steps apart: their mappings' orders put the uniqueBy one last already.
        reference = folder.path("reference.sqlite")
        try migrateBooks(source: source, destination: reference, fuseSteps: false)
    }

    override func tearDown() { folder = nil }

    func testTheUniqueByMappingIsCreatedAfterTheOthersAndLinkedInThePlansOrder() throws {
        let plan = try booksMigration(source: source, destination: folder.path("v3.sqlite")).plan()
        let step = try XCTUnwrap(plan.fusedSteps?.first)
        XCTAssertEqual(step.mappings.map(\.name), ["Users", "Authors", "Books", "Files"], "the fused step keeps v2 → v3's order")
        XCTAssertEqual(step.createOrder.map { step.mappings[$0].name }, ["Users", "Books", "Files", "Authors"])
        let events = Recorded<ProgressEvent>()
        _ = try booksMigration(source: source, destination: folder.path("v3.sqlite")).run { events.list.append($0) }
        func started(_ stage: Stage) -> [String] {
            events.list.filter { $0.kind == .started && $0.stage == stage }.compactMap(\.mapping)
        }
        XCTAssertEqual(started(.create), ["Users", "Books", "Files", "Authors"])
        XCTAssertEqual(started(.relate), ["Books"])
        try assertSameStore(folder.path("v3.sqlite"), reference)
        // A step without uniqueBy mapping, and one whose uniqueBy mapping is last already.
        XCTAssertEqual(plan.steps.map { $0.mappings.map(\.name) }, [["Users", "Books", "Authors"], ["Users", "Authors", "Books", "Files"]])
        for step in plan.steps { XCTAssertEqual(step.createOrder, step.mappingIDs) }
    }

    /// Stopped in Files (created before Authors, which comes before it in the plan): the
    /// resume creates Authors, where comparing mapping numbers would call it done. Then,
    /// stopped in Authors and resumed from the checkpoint in Files (a kill between commits
    /// and their checkpoints): the Authors rows and keys after it are rolled back, where
    /// comparing numbers would keep the keys and make them twice.
    func testAResumeFromACheckpointBeforeTheUniqueByMappingRollsItBack() throws {
        for pushdown in [true, false] {
            let destination = folder.path("v3-\(pushdown).sqlite")
            let checkpoint = destination + ".etl-checkpoint"
            let older = folder.path("older-\(pushdown).checkpoint")
            var migration = stopped(creating: "Files", destination: destination, pushdown: pushdown)
            XCTAssertEqual(try XCTUnwrap(CheckpointFile(destination: destination).read()).mappingName, "Files")
            try FileManager.default.copyItem(atPath: checkpoint, toPath: older)
            let again = Cancellation()
            migration.cancellation = again
            XCTAssertThrowsError(try migration.run { event in
                // (Inside SQLite its rows are one transaction: stopped once it is done.)
                if event.kind == .advanced || event.kind == .finished, event.stage == .create, event.mapping == "Authors" { again.cancel() }
            })
            XCTAssertEqual(try XCTUnwrap(CheckpointFile(destination: destination).read()).mappingName, "Authors")
            try FileManager.default.removeItem(atPath: checkpoint)
            try FileManager.default.copyItem(atPath: older, toPath: checkpoint)
            migration.cancellation = nil
            let summary = try migration.run()
            XCTAssertNotNil(summary.resumed)
            try assertSameStore(destination, reference)
        }
    }

    /// An engine of 0.3.0 created Authors second, in the plan's order: its checkpoint in
    /// Authors means Books and Files are not made yet, where this engine's order would call
    /// them done and lose their rows. Such a checkpoint is refused, naming both versions.
    func testACheckpointOfAnEngineThatCreatedRowsInThePlansOrderIsRefused() throws {
        let destination = folder.path("v3.sqlite")
        let migration = stopped(creating: "Authors", destination: destination, pushdown: false)
        let file = CheckpointFile(destination: destination)
        var older = try XCTUnwrap(file.read())
        XCTAssertEqual(older.mappingName, "Authors")
        older.identity.toolVersion = "0.3.0"
        try file.write(older, durable: false)
        assertMigrationError(try migration.run(), contains: ["belongs to a different run", "etl changed from version 0.3.0 to \(ETLVersion.current)", "--restart"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "a store was installed")
        XCTAssertEqual(try XCTUnwrap(file.read()).identity.toolVersion, "0.3.0", "the checkpoint is kept for --restart to discard")
    }

    /// The books pipeline as one step, one source row a chunk, stopped once `mapping` created
    /// half its rows; returns the migration, without its cancellation, to run again.
    func stopped(creating mapping: String, destination: String, pushdown: Bool) -> Migration {
        var migration = booksMigration(source: source, destination: destination, chunkSize: 1, workers: 1)
        migration.pushdown = pushdown
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.kind == .advanced, event.stage == .create, event.mapping == mapping, event.done * 2 >= event.total { cancellation.cancel() }
        })
        migration.cancellation = nil
        return migration
    }
}
