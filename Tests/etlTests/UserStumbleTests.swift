import XCTest
import Foundation
import ETL
import ETLExpression

/// The smaller things a new user stumbled on (issue 20, items 6–9), each as they met it.
extension CommandLineTests {
    func testPushedDownRelateCountsLinksNotStatements() throws {
        let sample = try etl("sample", "books", "--version", "1", "--rows", "300", "--seed", "2", "--out", "v1.sqlite")
        XCTAssertEqual(sample.status, 0, sample.stderr)
        // Apart (not as one step): each step's own relate line.
        let run = try etl("run", pipeline, "--source", "v1.sqlite", "--destination", "v3.sqlite", "--progress", "lines", "--separate-steps", "--wide")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stdout.contains("ran as one step"), run.stdout)
        // Step 1 runs inside SQLite: its Books relate line counts the links, as the summary does.
        let summaryLine = try XCTUnwrap(run.stdout.split(separator: "\n").first { $0.hasPrefix("v1 to v2  Books") }, run.stdout)
        let related = try XCTUnwrap(summaryLine.split(separator: " ").dropLast().last.map(String.init))
        XCTAssertTrue(run.stderr.contains("step 1/2 relate Books (v1 to v2): \(related) links set by 2 statements in"), run.stderr)
        // So does step 2's (Files' links are written with its rows: it has no relate line).
        XCTAssertTrue(run.stderr.contains("step 2/2 relate Books (v2 to v3): "), run.stderr)
        XCTAssertFalse(run.stderr.contains("step 2/2 relate Files"), run.stderr)
        XCTAssertFalse(run.stderr.contains("(v1 to v2): 2 associations"), run.stderr)
    }

    func testStatusWithoutDestinationFindsTheRunOrNamesWhereItLooked() throws {
        let sample = try etl("sample", "books", "--version", "1", "--rows", "300", "--seed", "2", "--out", "v1.sqlite")
        XCTAssertEqual(sample.status, 0, sample.stderr)
        // Nothing running: the answer names the checkpoint file looked for.
        let none = try etl("status", pipeline)
        XCTAssertEqual(none.status, 0, none.stderr)
        let expected = Self.root.appendingPathComponent("out/books-v3.sqlite.etl-checkpoint").path
        XCTAssertTrue(none.stdout.hasPrefix("no run in progress: there is no \(expected)"), none.stdout)

        // A run with --destination here, stopped with a checkpoint (the first relate event stops it)…
        var migration = Migration(pipeline: pipeline)
        migration.source = folder.appendingPathComponent("v1.sqlite").path
        migration.destination = folder.appendingPathComponent("mine.sqlite").path
        migration.chunkSize = 50
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { if $0.stage == .relate { cancellation.cancel() } })
        // …is found by `etl status PIPELINE` run in its folder.
        let found = try etl("status", pipeline)
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.contains("found a run of this pipeline with --destination \(folder.appendingPathComponent("mine.sqlite").path)"), found.stdout)
        XCTAssertTrue(found.stdout.contains("run in progress: step 1/1 (v1 to v2 + v2 to v3)"), found.stdout)
    }
}

extension CommandLineTests {
    func testAnUnknownCommandIsAnErrorEvenWithHelp() throws {
        for arguments in [["validate", "--help"], ["validate", "pipelines/books.json"], ["plam", "x.json"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stdout)")
            XCTAssertTrue(result.stderr.hasPrefix("error: unknown command '\(arguments[0])'"), result.stderr)
            XCTAssertTrue(result.stderr.contains("the commands are run, plan, batch"), result.stderr)
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertTrue(try etl("plam", "x.json").stderr.contains("(did you mean 'plan'?)"))
        XCTAssertEqual(try etl("help", "run").status, 0)
    }

    func testNoExampleInAnyHelpIsWrapped() throws {
        // ArgumentParser wraps help at 80 columns: an example wrapped there cannot be pasted.
        for command in [["run"], ["plan"], ["batch"], ["status"], ["inspect"], ["model", "from-store"], ["rejects"], ["sample"], []] {
            let help = try run(command + ["--help"])
            XCTAssertEqual(help.status, 0, "\(command)")
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertTrue(lines.contains { $0.hasPrefix("  etl ") }, "\(command): no example")
            for (previous, line) in zip(lines, lines.dropFirst()) where previous.hasPrefix("  etl ") {
                XCTAssertTrue(line.isEmpty || line.hasPrefix(" "), "\(command): an example is wrapped:\n\(previous)\n\(line)")
            }
        }
    }

    func testAMissingSourceExitsTwoAsNothingWasRead() throws {
        for arguments in [["run", pipeline, "--source", "missing.sqlite", "--destination", "v3.sqlite"],
                          ["plan", pipeline, "--source", "missing.sqlite"],
                          ["inspect", "missing.sqlite"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("missing.sqlite: no such file"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("v3.sqlite").path))
    }

    func testTooManyRejectsLeaveOnlyTheRejectFile() throws {
        // The rows that stopped the run are kept (README: "Guarantees"); every other work file goes.
        XCTAssertEqual(try etl("sample", "books", "--rows", "200", "--out", "v1.sqlite").status, 0)
        _ = try temporary.booksStepPipeline("picky.json", drop: ["User.books", "Book"], mappings: Self.overflowingUsers)
        let run = try etl("run", "picky.json")
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("more than 0 rows were rejected"), run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
                       ["picky.json", "v1.sqlite", "v2.sqlite.rejects.jsonl.zst"])
        XCTAssertEqual(try etl("rejects", "v2.sqlite.rejects.jsonl.zst").status, 0)
    }
}

extension CommandLineTests {
    func testShellCompletionScriptsKnowEveryCommand() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try etl("--generate-completion-script", shell)
            XCTAssertEqual(script.status, 0, script.stderr)
            for word in ["plan", "from-store", "dry-run", "mermaid", "models"] {
                XCTAssertTrue(script.stdout.contains(word), "\(shell) completion lacks \(word)")
            }
        }
        // The bash script is valid bash.
        let file = folder.appendingPathComponent("etl.bash")
        try Data(try etl("--generate-completion-script", "bash").stdout.utf8).write(to: file)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-n", file.path]
        try check.run()
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 0)
    }
}
