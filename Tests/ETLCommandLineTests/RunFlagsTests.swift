import XCTest
import ArgumentParser
import ETL
import ETLExpression
@testable import ETLCommandLine

/// The flags `etl run` and `etl batch` share, parsed into `RunOptions`, and the numbers they
/// refuse before any work (`etlTests.NumericOptionTests` checks the same through `etl` itself).
final class RunFlagsTests: XCTestCase {
    func options(_ arguments: [String]) throws -> RunOptions {
        var options = RunOptions()
        try RunFlags.parse(arguments).apply(to: &options)
        return options
    }

    func testEachFlagSetsItsOption() throws {
        let given = try options(["--chunk-size", "500", "--workers", "3", "--lock-timeout", "2.5", "--no-check", "--no-pushdown", "--separate-steps"])
        XCTAssertEqual(given.chunkSize, 500)
        XCTAssertEqual(given.workers, 3)
        XCTAssertEqual(given.lockTimeoutSeconds, 2.5)
        XCTAssertFalse(given.checkSource)
        XCTAssertFalse(given.pushdown)
        XCTAssertFalse(given.fuseSteps)
    }

    func testWithoutFlagsThePipelineDecidesAndEveryShortcutIsOn() throws {
        var options = RunOptions()
        options.chunkSize = 700  // as the pipeline's options.chunkSize would
        try RunFlags.parse([]).apply(to: &options)
        XCTAssertEqual(options.chunkSize, 700, "no --chunk-size: the value already there stays")
        XCTAssertNil(options.workers)
        XCTAssertEqual(options.lockTimeoutSeconds, 5)
        XCTAssertTrue(options.checkSource)
        XCTAssertTrue(options.pushdown)
        XCTAssertTrue(options.fuseSteps)
    }

    func testANumberOutOfRangeIsRefusedNamingItsFlag() {
        for (arguments, flag) in [(["--chunk-size", "0"], "--chunk-size"), (["--workers", "257"], "--workers"),
                                  (["--lock-timeout", "nan"], "--lock-timeout"), (["--lock-timeout=-1"], "--lock-timeout")] {
            XCTAssertThrowsError(try RunFlags.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue(RunFlags.message(for: error).contains(flag), "\(arguments): \(RunFlags.message(for: error))")
                XCTAssertEqual(ETLCommand.ending(for: error).code, ExitStatus.badInput, "\(arguments)")
            }
        }
        XCTAssertNoThrow(try RunFlags.parse(["--chunk-size", "1", "--workers", "256"]), "the limits themselves are allowed")
    }
}
