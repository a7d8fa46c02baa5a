import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// kill -9 at moments spread over every stage, resume each time, and end with the same
/// store as an uninterrupted run: invariant 3 of DESIGN.md, with a real process.
final class KillResumeTests: XCTestCase {
    static var root: URL { repositoryRoot }
    static var pipeline: String { root.appendingPathComponent("pipelines/books.json").path }

    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-kill") }
    override func tearDown() { temporary = nil }

    /// The kill moments are random (a new seed each run, to explore); every failure names
    /// the seed, and `ETL_TEST_SEED` replays it.
    var seed: TestSeed?

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let hint = seed.map { " (\($0.replayHint))" } ?? ""
        super.recordFailure(withDescription: description + hint, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Where to kill: the first event of this step, stage and mapping at or past `fraction`.
    typealias Target = KillTarget

    typealias Outcome = ToolRun

    /// Runs `etl run` with JSON progress; SIGKILLs it (after a random pause of up to 15 ms)
    /// when an event matches `target`. Returns how the process ended.
    func run(_ arguments: [String], program: String = "etl", killAt target: Target?, random: inout SplitMix64) throws -> Outcome {
        guard let target else { return try ToolProcess.run(arguments, program: program) }
        return try ToolProcess.run(arguments, program: program, killAt: target, pause: target.randomPause(&random))
    }

    /// Row by row: twelve moments over every stage of both steps (run apart, the store
    /// between them written), in order.
    func testKilledAtAnyMomentResumesToTheSameStore() throws {
        try killAndResume(rows: 4000, chunkSize: 20, options: ["--no-pushdown", "--separate-steps"], minimumKills: 10, targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.3),
            Target(step: 1, stage: "create", mapping: "Authors", fraction: 0.5),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0.2),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0.7),
            Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
            Target(step: 2, stage: "create", mapping: "Users", fraction: 0),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.4),
            Target(step: 2, stage: "relate", mapping: "Books", fraction: 0.5),
            Target(step: 2, stage: "relate", mapping: "Files", fraction: 0.1),
            Target(step: 2, stage: "relate", mapping: "Files", fraction: 0.8),
            Target(step: 2, stage: "validate", mapping: nil, fraction: 0),
            Target(step: 2, stage: "finalize", mapping: nil, fraction: 0),
        ])
    }

    /// Step 1 pushed down into SQLite: kills land inside its statements (a chunk of keys,
    /// the uniqueBy statement, a relationship statement), which SQLite's journal undoes.
    func testKilledInsideSQLiteStatementsResumesToTheSameStore() throws {
        try killAndResume(rows: 40_000, chunkSize: 20, options: ["--separate-steps"], minimumKills: 5, targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.2),
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.6),
            Target(step: 1, stage: "create", mapping: "Authors", fraction: 0),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0.5),
            Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.4),
        ])
    }

    /// Step 2 pushed down with its forEach: kills land inside the ranges of Files' pairs
    /// (rows with their book and user links, numbered by SQLite, in one transaction each),
    /// then in the step's link statements after them.
    func testKilledInsideTheForEachPushdownResumesToTheSameStore() throws {
        try killAndResume(rows: 40_000, chunkSize: 20, options: ["--separate-steps"], minimumKills: 5, targets: [
            Target(step: 2, stage: "create", mapping: "Books", fraction: 0.5),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.1),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.5),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.9),
            Target(step: 2, stage: "relate", mapping: "Books", fraction: 0),
            Target(step: 2, stage: "validate", mapping: nil, fraction: 0),
        ])
    }

    /// The two steps run as one (`StepFusion`): kills land in each of the fused step's
    /// statements — users, the authors grouped over books, books, the (book, user) pairs'
    /// files, the Author ↔ Book links — and in its validation; the resumed store is the
    /// uninterrupted fused run's (which `StepFusionTests` compares with the steps run apart).
    func testKilledInsideTheFusedStepResumesToTheSameStore() throws {
        try killAndResume(rows: 40_000, chunkSize: 20, options: [], minimumKills: 5, targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.5),
            Target(step: 1, stage: "create", mapping: "Files", fraction: 0.2),
            Target(step: 1, stage: "create", mapping: "Files", fraction: 0.7),
            // Created last (`StepPlan.createOrder`).
            Target(step: 1, stage: "create", mapping: "Authors", fraction: 0),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0),
            Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
        ])
    }

    /// Keys need not be positive: every key negated, one source row per chunk, so that
    /// kills land between any two rows of the create stage (each resume rolls back rows
    /// whose keys lie below every watermark of handed-out keys).
    func testNegativeKeysKilledAtChunkSizeOneResumeToTheSameStore() throws {
        try killAndResume(rows: 400, chunkSize: 1, workers: 1, options: ["--no-pushdown", "--separate-steps"], minimumKills: 4, negateKeys: true, targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.2),
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.4),
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.7),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0.5),
            Target(step: 2, stage: "create", mapping: "Books", fraction: 0.3),
            Target(step: 2, stage: "create", mapping: "Books", fraction: 0.8),
            Target(step: 2, stage: "create", mapping: "Files", fraction: 0.5),
        ])
    }

    /// A store whose steps each fit in one chunk keeps the checkpoints inside a step in
    /// memory: killed in step 1, the rerun starts over (no checkpoint yet); in step 2, it
    /// resumes from the step's start. Either way, the same store. (Small to the chunk: a
    /// chunk of 200,000 rows, so that a run lasts long enough for kills to land in it.) The
    /// steps run apart, then as one.
    func testSmallStoreWithinOneChunkKilledAtAnyMomentResumesToTheSameStore() throws {
        for options in [["--separate-steps"], ["--no-pushdown", "--separate-steps"]] {
            try killAndResume(rows: 5000, chunkSize: 200_000, options: options, minimumKills: 3, everyKillResumes: false, targets: [
                Target(step: 1, stage: "create", mapping: "Books", fraction: 0),
                Target(step: 1, stage: "relate", mapping: "Books", fraction: 0),
                Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
                Target(step: 2, stage: "create", mapping: "Files", fraction: 0),
                Target(step: 2, stage: "relate", mapping: "Books", fraction: 0),
                Target(step: 2, stage: "validate", mapping: nil, fraction: 0),
                Target(step: 2, stage: "finalize", mapping: nil, fraction: 0),
            ])
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) { try FileManager.default.removeItem(atPath: path(file)) }
        }
        // As one step: its one store, killed at any of its stages, starts over or resumes.
        try killAndResume(rows: 5000, chunkSize: 200_000, options: [], minimumKills: 3, everyKillResumes: false, targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0),
            Target(step: 1, stage: "create", mapping: "Files", fraction: 0),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0),
            Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
            Target(step: 1, stage: "finalize", mapping: nil, fraction: 0),
        ])
    }

    /// A policy prepared with fields (`Policy(prepare:)`): `etl-bench-closure`'s Books
    /// mapping, which SQLite calls from the mapping's insert (`PolicyInSQLite`), 2,000 source
    /// rows per transaction; kills land between and inside those and in the links after.
    func testKilledInAPreparedPolicysMappingResumesToTheSameStore() throws {
        try killAndResume(rows: 20000, chunkSize: 20, options: [], minimumKills: 4,
                          pipeline: Self.root.appendingPathComponent("Benchmarks/pipelines/books-v1-v2-closure.json").path,
                          program: "etl-bench-closure", targets: [
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.2),
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.5),
            Target(step: 1, stage: "create", mapping: "Books", fraction: 0.8),
            Target(step: 1, stage: "create", mapping: "Authors", fraction: 0),
            Target(step: 1, stage: "relate", mapping: "Books", fraction: 0),
            Target(step: 1, stage: "validate", mapping: nil, fraction: 0),
        ])
    }

    /// Runs the books chain (or `pipeline` with `program`) into a destination, SIGKILLing it
    /// at each target in turn and rerunning; the end result must equal an uninterrupted run's.
    /// `everyKillResumes`: each rerun after a kill continues from a checkpoint (not so when
    /// steps fit in one chunk).
    ///
    /// A kill's random pause can carry the run past the next targets; past the last ones it
    /// finishes with fewer kills than `minimumKills` (on a fast machine the end of a step
    /// takes less than the longest pause). Then the chain is tried again into a new
    /// destination with pauses half as long, at most twice: every try must end with the
    /// reference store, and one of them must have had its kills.
    func killAndResume(rows: Int, chunkSize: Int, workers: Int = 2, options: [String], minimumKills: Int, negateKeys: Bool = false,
                       everyKillResumes: Bool = true, pipeline: String = KillResumeTests.pipeline, program: String = "etl",
                       targets: [Target]) throws {
        let source = path("v1.sqlite")
        try BooksSample.write(rows: rows, seed: 21, to: source)
        if negateKeys {
            let db = try Database(path: source, mode: .readWrite)
            try db.execute("UPDATE Book SET id = -id; UPDATE User SET id = -id; UPDATE Book_users SET source_id = -source_id, target_id = -target_id")
        }
        let common = ["run", pipeline, "--source", source, "--chunk-size", String(chunkSize), "--workers", String(workers), "--progress", "json"] + options
        let seed = TestSeed(fixedFor: name)
        self.seed = seed
        var random = SplitMix64(seed: seed.value)

        let reference = try run(common + ["--destination", path("reference.sqlite")], program: program, killAt: nil, random: &random)
        XCTAssertEqual(reference.status, 0, reference.stderr)

        var landed: [Int] = []
        for attempt in 0..<3 {
            let shorter = targets.map { target in
                var target = target
                target.pause >>= attempt
                return target
            }
            let kills = try killChain(common, program: program, options: options, chunkSize: chunkSize, workers: workers,
                                      everyKillResumes: everyKillResumes, targets: shorter, random: &random)
            landed.append(kills)
            if kills >= minimumKills { break }
            try FileManager.default.removeItem(atPath: path("v3.sqlite"))
        }
        XCTAssertGreaterThanOrEqual(landed.max() ?? 0, minimumKills,
                                    "too few kills landed to prove anything (kills of each try: \(landed))")
    }

    /// One try of `killAndResume`: kills at each target, resumes, and checks the store the
    /// chain ends with. Returns how many kills landed.
    func killChain(_ common: [String], program: String, options: [String], chunkSize: Int, workers: Int,
                   everyKillResumes: Bool, targets: [Target], random: inout SplitMix64) throws -> Int {
        let destination = path("v3.sqlite")
        var kills = 0
        var resumes = 0
        var redone: [Int] = []
        var finished = false
        for target in targets {
            let outcome = try run(common + ["--destination", destination], program: program, killAt: target, random: &random)
            redone += Self.redone(outcome.stderr)
            if outcome.stderr.contains("\"kind\":\"resumed\"") { resumes += 1 }
            if outcome.killed {
                kills += 1
                XCTAssertFalse(outcome.status == 0, "killed at \(target) but exited 0")
            } else {
                // The run got past the target (or finished) before the kill: fine, go on.
                finished = ranToTheEnd(outcome, destination: destination)
                XCTAssertTrue(finished, "run aimed at \(target) failed:\n\(outcome.stderr.suffix(2000))")
                if finished { break }
            }
        }
        if !finished {
            let last = try run(common + ["--destination", destination], program: program, killAt: nil, random: &random)
            assertFinishesAfterTheKills(last, destination: destination)
            if last.stderr.contains("\"kind\":\"resumed\"") { resumes += 1 }
            redone += Self.redone(last.stderr)
        }
        if everyKillResumes {
            XCTAssertGreaterThanOrEqual(resumes, kills - 1)
            XCTAssertGreaterThanOrEqual(redone.count, kills - 1, "every resume reports what it loads again")
        }
        // Row by row, at most a chunk per worker is loaded again; inside SQLite, one chunk of keys.
        let chunkRows = options.contains("--no-pushdown") ? chunkSize * workers : chunkSize * 100
        for n in redone { XCTAssertLessThanOrEqual(n, chunkRows, "a resume loaded more than one chunk per worker again") }

        try assertSameStore(destination, path("reference.sqlite"))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(left, ["reference.sqlite", "v1.sqlite", "v3.sqlite"], "work files left after the final run")
        return kills
    }

    /// A value inside SQLite that the row-by-row engine rejects, late in the store: the
    /// step starts over row by row. Killed in that second try, the rerun goes on row by row
    /// (the checkpoint says so) rather than inside SQLite again, and ends with the store,
    /// rejects and summary of a run row by row from the start.
    func testKilledAfterARejectedValueSentTheStepRowByRowResumesRowByRow() throws {
        let source = path("v1.sqlite")
        try BooksSample.write(rows: 4000, seed: 23, to: source)
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("UPDATE Book SET title = CAST(id * 3 AS TEXT); UPDATE Book SET title = 'not a number' WHERE id = 3700")
        db.close()
        let pipeline = try temporary.booksStepPipeline("prices.json", destination: "unused.sqlite", options: #""maxRejects": 5"#,
                                                       drop: ["User", "Book.authorName", "Book.fileURL", "Book.published", "Book.price", "Book.users"], mappings: """
            { "name": "Books", "source": "Book", "destination": "Book",
              "attributes": { "title": "$source.title", "price": "double($source.title)" } }
            """)
        let common = ["run", pipeline, "--source", source, "--chunk-size", "4", "--workers", "2", "--progress", "json"]
        let reference = try ToolProcess.run(common + ["--destination", path("reference.sqlite"), "--no-pushdown"])
        XCTAssertEqual(reference.status, 0, reference.stderr)

        // Killed once the second try (row by row) has loaded rows of its own.
        let destination = path("v2.sqlite")
        let starts = Counter()
        let killed = try ToolProcess.run(common + ["--destination", destination]) { line in
            if line.contains("\"kind\":\"started\"") && line.contains("\"stage\":\"create\"") { starts.add() }
            return starts.value == 2 && line.contains("\"kind\":\"advanced\"") && line.contains("\"done\":2")
        }
        XCTAssertTrue(killed.killed, killed.stderr.suffix(2000).description)
        XCTAssertEqual(starts.value, 2, "inside SQLite, then row by row")

        let resumed = try ToolProcess.run(common + ["--destination", destination])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("\"kind\":\"resumed\""), resumed.stderr)
        let creates = resumed.stderr.split(separator: "\n").filter { $0.contains("\"kind\":\"started\"") && $0.contains("\"stage\":\"create\"") }
        XCTAssertEqual(creates.count, 1, "the rerun went on row by row, without another try inside SQLite")
        XCTAssertTrue(resumed.stdout.contains("ran row by row, not inside SQLite: mapping Books has values that are rejected (double('not a number')"),
                      resumed.stdout)
        try assertSameStore(destination, path("reference.sqlite"))
        let rejects = try RejectFile.read(destination + ".rejects.jsonl.zst")
        XCTAssertEqual(rejects.map(\.key), [3700])
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    func testSIGINTStopsCleanlyAndTheRunResumes() throws {
        let source = path("v1.sqlite")
        try BooksSample.write(rows: 4000, seed: 22, to: source)
        let destination = path("v3.sqlite")
        // SIGINT once a chunk of the relate stage was loaded (so its checkpoint exists).
        let interrupted = try ToolProcess.run(["run", Self.pipeline, "--source", source, "--destination", destination,
                                               "--chunk-size", "20", "--progress", "json", "--no-pushdown"], signal: SIGINT) { line in
            line.contains("\"kind\":\"advanced\"") && line.contains("\"stage\":\"relate\"")
        }
        let stderr = interrupted.stderr
        XCTAssertEqual(interrupted.status, 130, stderr.suffix(1000).description)
        XCTAssertTrue(stderr.contains("interrupted. Progress is saved in \(destination).etl-checkpoint. Run the same command again to resume."),
                      stderr.suffix(1000).description)
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination + ".etl-checkpoint"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))

        var random = SplitMix64(seed: 1)
        let status = try run(["status", Self.pipeline, "--destination", destination], killAt: nil, random: &random)
        XCTAssertTrue(status.stdout.contains("run in progress: step 1/1 (v1 to v2 + v2 to v3), relate Books"), status.stdout)

        let resumed = try run(["run", Self.pipeline, "--source", source, "--destination", destination, "--chunk-size", "20", "--no-pushdown"],
                              killAt: nil, random: &random)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("resuming step 1/1 relate Books (v1 to v2 + v2 to v3)"), resumed.stderr)
        let reference = try run(["run", Self.pipeline, "--source", source, "--destination", path("reference.sqlite"), "--chunk-size", "20"],
                                killAt: nil, random: &random)
        XCTAssertEqual(reference.status, 0)
        try assertSameStore(destination, path("reference.sqlite"))
        let after = try run(["status", Self.pipeline, "--destination", destination], killAt: nil, random: &random)
        XCTAssertEqual(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "no run in progress: there is no \(destination).etl-checkpoint")
    }

    /// The `redone` counts of the resumed events in a run's JSON progress.
    static func redone(_ stderr: String) -> [Int] {
        stderr.split(separator: "\n").compactMap { line in
            guard line.contains("\"kind\":\"resumed\""),
                  let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return event["redone"] as? Int
        }
    }
}
