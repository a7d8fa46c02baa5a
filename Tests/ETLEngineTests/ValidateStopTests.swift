import Foundation
import XCTest
import ETLEngine
import ETL

/// Given a stop request (SIGTERM, SIGINT) while the last step validates, when the run
/// notices, then it stops at once with its checkpoint — it does not finish validating and
/// install the store — and the same command resumes to the same store.
final class ValidateStopTests: XCTestCase {
    func testAStopDuringTheLastValidationIsHonoured() throws {
        let folder = try TemporaryFolder()
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 2000, seed: 6, to: source)
        let reference = folder.path("reference.sqlite")
        try migrateBooks(source: source, destination: reference)
        let destination = folder.path("v3.sqlite")
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = destination
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.step == 2, event.stage == .validate, event.kind == .started { cancellation.cancel() }
        }) { error in
            guard case MigrationError.interrupted(let checkpoint) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(checkpoint, destination + ".etl-checkpoint")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "installed after a stop request")
        XCTAssertEqual(try CheckpointFile(destination: destination).read()?.position.stage, .validate)
        migration.cancellation = nil
        XCTAssertEqual(try migration.run().resumed?.stage, .validate)
        try assertSameStore(destination, reference)
    }
}
