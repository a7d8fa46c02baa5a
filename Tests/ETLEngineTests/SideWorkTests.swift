import XCTest
import Foundation
import ETLStore
@testable import ETLEngine

/// Checks the run waits for only at its end (the source's quick check, `FusionCheck`) run
/// on a core nobody else wants; the rest of the side work keeps the run's priority.
final class SideWorkTests: XCTestCase {
    /// The scheduling policy of the thread a side work's body runs on.
    func policy(whenIdle: Bool) throws -> Int32 {
        let work = SideWork(on: try Database(path: ":memory:", mode: .create), whenIdle: whenIdle) { _ in
            var policy: Int32 = -1
            var parameters = sched_param()
            _ = pthread_getschedparam(pthread_self(), &policy, &parameters)
            return policy
        }
        return try work.wait()
    }

    func testAWorkDoneWhenIdleRunsInTheIdleClass() throws {
        #if os(Linux)
        XCTAssertEqual(try policy(whenIdle: true), 5, "SCHED_IDLE")
        XCTAssertEqual(try policy(whenIdle: false), 0, "SCHED_OTHER, as the run's own threads")
        #else
        throw XCTSkip("SCHED_IDLE is Linux's")
        #endif
    }
}
