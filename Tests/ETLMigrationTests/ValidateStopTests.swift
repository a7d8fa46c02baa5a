import Foundation
import XCTest
import ETLEngine
import ETLExpression
import ETL

/// Given a stop request (SIGTERM, SIGINT) while the last step validates, when the run
/// notices, then it stops at once with its checkpoint — it does not finish validating and
/// install the store — and the same command resumes to the same store.
final class ValidateStopTests: XCTestCase {
    func testAStopDuringTheLastValidationIsHonoured() throws {
        let fixture = try BooksResumeFixture(rows: 2000, seed: 6)
        let (reference, destination) = (fixture.reference, fixture.destination)
        var migration = fixture.migration
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.step == event.stepCount, event.stage == .validate, event.kind == .started { cancellation.cancel() }
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
