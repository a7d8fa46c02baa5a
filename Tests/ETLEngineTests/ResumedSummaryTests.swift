import XCTest
import Foundation
import ETLStore
import ETL

/// The summary of a resumed run counts the work of the runs it continues.
extension ResumeTests {
    func testTheTotalSecondsOfAResumedRunAreAtLeastTheMappingsSeconds() throws {
        let destination = folder.path("v3.sqlite")
        // The first run spends 2.5 s inside step 2's Books mapping (the pause is on the
        // loading thread, so the mapping's seconds count it), then stops in its Files mapping.
        let paused = PauseOnce()
        try interrupted {
            try run(destination, stopWhen: { e in
                if e.step == 2 && e.stage == .create && e.mapping == "Books" && e.kind == .advanced { paused.sleepOnce(2.5) }
                return e.step == 2 && e.stage == .create && e.mapping == "Files" && e.kind == .advanced
            })
        }
        let (summary, _) = try run(destination)
        XCTAssertNotNil(summary.resumed)
        let mappings = summary.mappings.reduce(0) { $0 + $1.seconds }
        XCTAssertGreaterThanOrEqual(mappings, 2.5)
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
