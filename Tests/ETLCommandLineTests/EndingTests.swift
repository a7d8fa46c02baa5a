import XCTest
import ArgumentParser
import ETL
import ETLExpression
@testable import ETLCommandLine

/// What `etl` says when a command ends with an error, and the documented exit code:
/// 2 for bad input (nothing was read), 1 for a failed run, 0 for `--help`.
final class EndingTests: XCTestCase {
    func testEachKindOfErrorGetsItsExitCode() {
        let pipeline = DocumentError(file: "p.json", line: 3, column: 7, path: "$.steps[0]", message: "missing \"mappings\"")
        XCTAssertEqual(ETLCommand.ending(for: pipeline), .init(message: "error: \(pipeline)", code: ExitStatus.badInput))

        let missing = MigrationError.badSource(path: "/x/none.sqlite", reason: SourceStore.noSuchFile)
        XCTAssertEqual(ETLCommand.ending(for: missing).code, ExitStatus.badInput, "a source that does not exist: nothing was read")
        let damaged = MigrationError.badSource(path: "/x/bad.sqlite", reason: "file is not a database")
        XCTAssertEqual(ETLCommand.ending(for: damaged), .init(message: "error: \(damaged)", code: ExitStatus.failed))

        XCTAssertEqual(ETLCommand.ending(for: CLIFailure(message: "no checkpoint for out.sqlite", code: ExitStatus.badInput)),
                       .init(message: "error: no checkpoint for out.sqlite", code: ExitStatus.badInput))
        XCTAssertEqual(ETLCommand.ending(for: CLIFailure(message: "3 stores failed")).code, ExitStatus.failed)
    }

    func testArgumentErrorsAreBadInputAndHelpIsAnAnswer() {
        XCTAssertThrowsError(try ETLCommand.parseAsRoot(["run"])) { error in
            let ending = ETLCommand.ending(for: error)
            XCTAssertEqual(ending.code, ExitStatus.badInput)
            XCTAssertFalse(ending.isAnswer)
            XCTAssertTrue(ending.message.contains("<pipeline>"), ending.message)
        }
        // As `main` meets it: parsed into ArgumentParser's help command, whose run ends cleanly.
        XCTAssertThrowsError(try { var help = try ETLCommand.parseAsRoot(["run", "--help"]); try help.run() }()) { error in
            let ending = ETLCommand.ending(for: error)
            XCTAssertTrue(ending.isAnswer, "help is printed on standard output, exit 0")
            XCTAssertTrue(ending.message.contains("--no-pushdown"), ending.message)
        }
    }

    func testAnUnknownCommandIsNamedWithTheClosestOne() throws {
        let message = try XCTUnwrap(ETLCommand.unknownCommand(["rnu", "pipeline.json"]))
        XCTAssertTrue(message.hasPrefix("error: unknown command 'rnu' (did you mean 'run'?); the commands are "), message)
        XCTAssertTrue(message.contains("batch"), message)
        XCTAssertFalse(message.contains("help,"), "help is allowed, not listed")
        XCTAssertNil(ETLCommand.unknownCommand(["run", "p.json"]))
        XCTAssertNil(ETLCommand.unknownCommand(["help"]))
        XCTAssertNil(ETLCommand.unknownCommand(["--version"]), "a flag is ArgumentParser's to judge")
        XCTAssertNil(ETLCommand.unknownCommand([]))
    }
}
