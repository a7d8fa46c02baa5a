import XCTest
@testable import ETLEngine
import ETLExpression
@testable import ETLCommandLine

/// What `etl run` writes on standard error while it works, style by style, on a clock of
/// the test's own.
final class ProgressDisplayTests: XCTestCase {
    /// A display writing into `written`, whose clock reads `clock`.
    final class Screen: @unchecked Sendable {
        var written = ""
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        func display(_ style: ProgressStyle) -> ProgressDisplay {
            ProgressDisplay(style: style, output: { [unowned self] in written += $0 }, now: { [unowned self] in clock })
        }
    }

    func event(_ kind: ProgressEvent.Kind, _ stage: Stage, mapping: String? = "Books", done: Int, total: Int,
               redone: Int? = nil, links: Int? = nil, removed: String? = nil) -> ProgressEvent {
        ProgressEvent(kind: kind, step: 1, stepCount: 2, stepName: "v1 to v2", stage: stage, mapping: mapping, done: done, total: total,
                      redone: redone, links: links, removed: removed)
    }

    func testLinesSayWhatEachFinishedStageDidAndHowLongItTook() {
        let screen = Screen()
        let display = screen.display(.lines)
        display.show(event(.started, .create, done: 0, total: 2000))
        display.show(event(.advanced, .create, done: 1000, total: 2000))
        screen.clock += 1.25
        display.show(event(.finished, .create, done: 2000, total: 2000))
        display.show(event(.started, .relate, done: 0, total: 3))
        screen.clock += 0.5
        display.show(event(.finished, .relate, done: 3, total: 3, links: 4000))
        display.show(event(.finished, .validate, mapping: nil, done: 1, total: 1))
        XCTAssertEqual(screen.written.components(separatedBy: "\n"), [
            "[2027-01-15T08:00:01Z] step 1/2 create Books (v1 to v2): 2000 rows in 1.25 s",
            "[2027-01-15T08:00:01Z] step 1/2 relate Books (v1 to v2): 4000 links set by 3 statements in 0.50 s",
            "[2027-01-15T08:00:01Z] step 1/2 validate (v1 to v2): 1 checks passed in 0.50 s",
            "",
        ])
    }

    func testAResumeAndADropAreSaidInEveryStyleButJSON() {
        for style in [ProgressStyle.lines, .bar, .none] {
            let screen = Screen()
            let display = screen.display(style)
            display.show(event(.resumed, .create, done: 3000, total: 2000, redone: 500))
            display.show(event(.dropped, .create, mapping: nil, done: 12, total: 0, removed: "Book.isbn"))
            display.show(event(.dropped, .create, mapping: nil, done: 3, total: 0, removed: "Tag"))
            XCTAssertEqual(screen.written, """
                resuming step 1/2 create Books (v1 to v2), 100 % done; 500 source rows loaded after the last checkpoint are loaded again
                step 1/2 (v1 to v2) drops Book.isbn: 12 non-null values
                step 1/2 (v1 to v2) drops Tag: 3 rows

                """, "\(style): the percentage is clamped")
        }
    }

    func testJSONIsOneObjectPerEvent() throws {
        let screen = Screen()
        screen.display(.json).show(event(.advanced, .create, done: 5, total: 9))
        XCTAssertEqual(screen.written, #"{"done":5,"kind":"advanced","mapping":"Books","stage":"create","step":1,"stepCount":2,"stepName":"v1 to v2","total":9}"# + "\n")
    }

    func testTheBarShowsTheRateAndTimeLeftThenTheTimeTaken() {
        let screen = Screen()
        let display = screen.display(.bar)
        display.show(event(.started, .create, done: 0, total: 4000))
        screen.clock += 2
        display.show(event(.advanced, .create, done: 1000, total: 4000))
        let label = "step 1/2 create Books".padding(toLength: 34, withPad: " ", startingAt: 0)
        XCTAssertTrue(screen.written.hasSuffix("\r\u{1B}[2K\(label) ██████░░░░░░░░░░░░░░░░░░ 1000/4000 500/s ETA 0:06"), screen.written)
        screen.clock += 6
        display.show(event(.finished, .create, done: 4000, total: 4000))
        XCTAssertTrue(screen.written.hasSuffix("\r\u{1B}[2K\(label) ████████████████████████ 4000/4000 in 8.00 s\n"), screen.written)
    }

    func testTheTimeLeftIsMinutesAndSecondsRoundedUp() {
        XCTAssertEqual(ProgressDisplay.clock(0.2), "0:01")
        XCTAssertEqual(ProgressDisplay.clock(125), "2:05")
        XCTAssertEqual(ProgressDisplay.clock(-3), "0:00")
        XCTAssertEqual(ProgressDisplay.clock(.infinity), "16666666:40", "clamped: never a trap")
    }
}
