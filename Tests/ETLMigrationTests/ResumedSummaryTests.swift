import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// The summary of a resumed run counts the work of the runs it continues.
extension ResumeTests {
    func testTheTotalSecondsOfAResumedRunAreAtLeastTheMappingsSeconds() throws {
        let destination = folder.path("v3.sqlite")
        // The first run pauses inside step 2's Books mapping (on the loading thread, so the
        // mapping's seconds count it), then stops in its Files mapping.
        let paused = PauseOnce()
        try interrupted {
            try run(destination, stopWhen: { e in
                if e.step == 2 && e.stage == .create && e.mapping == "Books" && e.kind == .advanced { paused.sleepOnce(0.3) }
                return e.step == 2 && e.stage == .create && e.mapping == "Files" && e.kind == .advanced
            })
        }
        // What the stopped run recorded (no duration is asserted: only that the resumed
        // summary carries it, whatever it is).
        let checkpoint = try XCTUnwrap(CheckpointFile(destination: destination).read())
        let earlier = try XCTUnwrap(checkpoint.counters.first { $0.mapping == "Books" }).seconds
        XCTAssertGreaterThan(earlier, 0)
        let (summary, _) = try run(destination)
        XCTAssertNotNil(summary.resumed)
        let books = try XCTUnwrap(summary.mappings.first { $0.step == checkpoint.counters[0].step && $0.mapping == "Books" })
        XCTAssertGreaterThanOrEqual(books.seconds, earlier, "the resumed summary counts the stopped run's time in Books")
        let mappings = summary.mappings.reduce(0) { $0 + $1.seconds }
        XCTAssertGreaterThanOrEqual(summary.seconds, mappings)
    }

    final class PauseOnce: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func sleepOnce(_ seconds: Double) {
            lock.lock()
            let first = !done
            done = true
            lock.unlock()
            if first { Thread.sleep(forTimeInterval: seconds) }
        }
    }
}
