import XCTest
import Foundation
import ETLTestSupport

/// `make dist` (issue 46): the release archive, unpacked into an empty folder, runs with an
/// empty environment, needs no Swift library, and carries a man page naming every command
/// and the shell completions.
///
/// Slow: a release build of its own, in `.build-dist` (`swift test` holds `.build`'s lock, so
/// the archive cannot be built there while the tests run). A later run reuses it.
final class DistTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-dist") }
    override func tearDown() { temporary = nil }

    /// The shared libraries `ldd` may list: the C and C++ runtimes, SQLite, zstd, zlib.
    static let allowedLibraries = ["linux-vdso.so", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so",
                                   "libsqlite3.so", "libzstd.so", "libz.so", "ld-linux"]

    func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil, in folder: URL? = nil) throws -> ToolRun {
        try ToolProcess.run(arguments, program: program, in: folder ?? self.folder, environment: environment)
    }

    /// `make dist`, once for both tests: what it printed last (the archive's path).
    static let made: Result<String, Error> = Result {
        let make = try ToolProcess.run(["--no-print-directory", "-C", repositoryRoot.path, "dist", "SCRATCH=.build-dist"],
                                       program: "/usr/bin/make", environment: ProcessInfo.processInfo.environment)
        guard make.status == 0, let last = make.stdout.split(separator: "\n").last else {
            throw MakeFailure(output: make.stdout + make.stderr)
        }
        return String(last)
    }

    struct MakeFailure: Error, CustomStringConvertible {
        var output: String
        var description: String { "make dist failed:\n\(output)" }
    }

    func testTheArchiveRunsAloneWithAnEmptyEnvironment() throws {
        let archive = try Self.made.get()
        let machine = try uname()
        XCTAssertTrue(archive.hasPrefix("dist/etl-") && archive.hasSuffix("-linux-\(machine).tar.gz"), archive)

        // Unpacked into an empty folder.
        let unpacked = folder.appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        let tar = try run("/usr/bin/tar", ["-C", unpacked.path, "--strip-components=1", "-xzf", repositoryPath(archive)])
        XCTAssertEqual(tar.status, 0, tar.stderr)
        let etl = unpacked.appendingPathComponent("bin/etl").path
        for file in ["share/man/man1/etl.1", "share/bash-completion/completions/etl", "share/zsh/site-functions/_etl",
                     "share/fish/vendor_completions.d/etl.fish"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: unpacked.appendingPathComponent(file).path)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 100, file)
        }

        // No Swift library, nothing but the allowed ones.
        let ldd = try run("/usr/bin/ldd", [etl])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        let libraries = ldd.stdout.split(separator: "\n").compactMap { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) }
        XCTAssertFalse(libraries.isEmpty, ldd.stdout)
        for library in libraries {
            XCTAssertTrue(Self.allowedLibraries.contains { library.hasPrefix($0) || library.contains("/\($0)") }, "ldd lists \(library):\n\(ldd.stdout)")
        }

        // With an empty environment (no PATH, HOME, LANG), in the empty folder: a sample store,
        // upgraded by the books pipeline (Foundation's dates, numbers and text work without ICU files).
        let work = folder.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let sample = try run(etl, ["sample", "books", "--version", "1", "--rows", "500", "--seed", "3", "--out", "v1.sqlite"], environment: [:], in: work)
        XCTAssertEqual(sample.status, 0, sample.stderr)
        let migrated = try run(etl, ["run", repositoryPath("pipelines/books.json"), "--source", "v1.sqlite", "--destination", "v3.sqlite",
                                     "--progress", "none"], environment: [:], in: work)
        XCTAssertEqual(migrated.status, 0, migrated.stdout + migrated.stderr)
        XCTAssertTrue(migrated.stdout.contains("to \(work.appendingPathComponent("v3.sqlite").path)"), migrated.stdout)
        let status = try run(etl, ["--version"], environment: [:], in: work)
        XCTAssertEqual(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       archive.dropFirst("dist/etl-".count).components(separatedBy: "-linux-").first)

        // A Core Data bundle, read with libxml2 linked in: its store upgraded, layout found.
        let chain = try FixtureSet.copy("coredata-rename-chain", into: folder.appendingPathComponent("fixtures"))
        try """
            { "format": 1, "models": "\(chain.appendingPathComponent("Model.xcdatamodeld").path)",
              "source": { "store": "\(chain.appendingPathComponent("Example_v1.0.0.sqlite").path)" },
              "destination": { "store": "\(work.appendingPathComponent("chain.sqlite").path)" } }
            """.write(to: work.appendingPathComponent("chain.json"), atomically: true, encoding: .utf8)
        let chained = try run(etl, ["run", "chain.json", "--progress", "none"], environment: [:], in: work)
        XCTAssertEqual(chained.status, 0, chained.stdout + chained.stderr)
    }

    /// `man -l` renders the archive's page, and it has every command and subcommand of
    /// `etl --help` (found by asking each command for its own).
    func testTheManPageRendersEveryCommand() throws {
        _ = try Self.made.get()
        let page = repositoryPath(".build-dist/man/etl.1")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
            throw XCTSkip("no man: apt-get install -y man-db groff-base")
        }
        let rendered = try run("/usr/bin/man", ["-l", page], environment: ["MANWIDTH": "100", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertFalse(rendered.stderr.contains("warning"), rendered.stderr)
        // Bold and underline as overstrikes, if man kept them.
        let text = rendered.stdout.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        let source = try String(contentsOfFile: page, encoding: .utf8)
        let listed = try commands([])
        XCTAssertGreaterThanOrEqual(listed.count, 11, "\(listed)")
        for command in listed {
            let name = command.last!
            XCTAssertTrue(source.contains("\n.It Em \(name)\n"), "the man page lacks '\(command.joined(separator: " "))'")
            XCTAssertNotNil(text.range(of: "\n +\(name)( |\n)", options: .regularExpression), "man -l does not show '\(command.joined(separator: " "))'")
        }
        XCTAssertTrue(text.contains("130, 143"), "the exit codes")
    }

    /// Every command below `path` (["mapping"] → [["mapping", "show"], …]), from the
    /// SUBCOMMANDS section of each command's own --help.
    func commands(_ path: [String]) throws -> [[String]] {
        let help = try run(repositoryPath(".build-dist/release/etl"), path + ["--help"])
        XCTAssertEqual(help.status, 0, "\(path): \(help.stderr)")
        guard help.status == 0, let start = help.stdout.range(of: "SUBCOMMANDS:\n") else { return [] }
        // The list ends at the first blank line; a name is the first word of a line indented by two.
        let lines = help.stdout[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let names = lines.prefix { !$0.isEmpty }.compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init).flatMap { $0.first?.isLowercase == true ? $0 : nil }
        }
        XCTAssertFalse(names.isEmpty, help.stdout)
        return try names.filter { $0 != "help" }.flatMap { [path + [$0]] + (try commands(path + [$0])) }
    }

    func uname() throws -> String {
        try run("/usr/bin/uname", ["-m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
