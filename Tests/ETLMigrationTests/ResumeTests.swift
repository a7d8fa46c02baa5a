import XCTest
import ETLStore
import ETL
import ETLExpression

/// Runs stopped on request (the same path as SIGINT) and resumed in the same process.
/// The kill -9 test, with a real child process, is in etlTests/KillResumeTests.swift.
final class ResumeTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    var reference: String!

    override func setUpWithError() throws {
        (folder, source, _) = try givenBooksStore(rows: 3000, seed: 11)
        reference = folder.path("reference.sqlite")
        // The two steps apart (`--separate-steps`): stops in each, and between them.
        try migrateBooks(source: source, destination: reference, chunkSize: 50, workers: 2, fuseSteps: false)
    }

    override func tearDown() { folder = nil }

    /// Runs the books pipeline into `destination`, cancelling once `stop` says so.
    func run(_ destination: String, stopWhen stop: @escaping @Sendable (ProgressEvent) -> Bool = { _ in false },
             restart: Bool = false, pipeline: String = repositoryPath("pipelines/books.json")) throws -> (RunSummary, [ProgressEvent]) {
        let cancellation = Cancellation()
        var migration = booksMigration(source: source, destination: destination, chunkSize: 50, workers: 2, pipeline: pipeline, fuseSteps: false)
        migration.restart = restart
        migration.cancellation = cancellation
        let events = EventLog()
        let summary = try migration.run { event in
            events.append(event)
            if stop(event) { cancellation.cancel() }
        }
        return (summary, events.all)
    }

    final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [ProgressEvent] = []
        func append(_ e: ProgressEvent) { lock.lock(); events.append(e); lock.unlock() }
        var all: [ProgressEvent] { lock.lock(); defer { lock.unlock() }; return events }
    }

    func interrupted(_ body: () throws -> Any) throws {
        XCTAssertThrowsError(try body()) { error in
            guard case MigrationError.interrupted(let checkpoint) = error else { return XCTFail("expected interrupted, got \(error)") }
            XCTAssertNotNil(checkpoint)
        }
    }

    func stop(step: Int, stage: Stage, mapping: String? = nil, atLeast fraction: Double = 0) -> @Sendable (ProgressEvent) -> Bool {
        { e in
            e.step == step && e.stage == stage && (mapping == nil || e.mapping == mapping)
                && (e.kind == .started && fraction == 0 || e.total > 0 && Double(e.done) >= fraction * Double(e.total))
        }
    }

    func testStoppedInEveryStageResumesToTheSameStore() throws {
        let destination = folder.path("v3.sqlite")
        let stops = [stop(step: 1, stage: .create, mapping: "Books", atLeast: 0.4),
                     stop(step: 1, stage: .create, mapping: "Authors", atLeast: 0.5),
                     stop(step: 1, stage: .relate, mapping: "Books", atLeast: 0.3),
                     stop(step: 2, stage: .create, mapping: "Files", atLeast: 0.6),
                     stop(step: 2, stage: .relate, mapping: "Books", atLeast: 0)]
        for stop in stops {
            try interrupted { try run(destination, stopWhen: stop) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "nothing replaced before the end")
        }
        let (summary, events) = try run(destination)
        XCTAssertEqual(events.first?.kind, .resumed)
        try assertSameStore(destination, reference)
        XCTAssertEqual(try folder.files(), ["reference.sqlite", "v1.sqlite", "v3.sqlite"], "work files of a finished run are removed")
        // The counters add up as if never interrupted.
        let straight = try referenceSummary()
        XCTAssertEqual(summary.mappings.map(\.read), straight.mappings.map(\.read))
        XCTAssertEqual(summary.mappings.map(\.written), straight.mappings.map(\.written))
        XCTAssertEqual(summary.mappings.map(\.related), straight.mappings.map(\.related))
        XCTAssertLessThanOrEqual(summary.redoneRows, 50 * 2, "at most one chunk per worker is loaded again")
    }

    func referenceSummary() throws -> RunSummary {
        try migrateBooks(source: source, destination: folder.path("again.sqlite"), chunkSize: 50, workers: 2, replace: .force, fuseSteps: false)
    }

    func testAuthorsStayDeduplicatedAcrossAStopInTheirMapping() throws {
        let destination = folder.path("v3.sqlite")
        try interrupted { try run(destination, stopWhen: stop(step: 1, stage: .create, mapping: "Authors", atLeast: 0.5)) }
        let checkpoint = try XCTUnwrap(CheckpointFile(destination: destination).read())
        XCTAssertEqual(checkpoint.position.stage, .create)
        XCTAssertEqual(checkpoint.mappingName, "Authors")
        _ = try run(destination)
        let db = try Database(path: destination, mode: .readOnly)
        try db.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS v1")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Author"),
                       try db.scalarInt("SELECT count(DISTINCT authorName) FROM v1.Book"))
        XCTAssertEqual(try db.scalarInt("SELECT count(*) - count(DISTINCT name) FROM main.Author"), 0)
    }

    func testFinishedStepsAreNotRedone() throws {
        let destination = folder.path("v3.sqlite")
        try interrupted { try run(destination, stopWhen: stop(step: 2, stage: .relate, mapping: "Books", atLeast: 0.5)) }
        let (summary, events) = try run(destination)
        XCTAssertEqual(events.first?.kind, .resumed)
        XCTAssertEqual(events.first?.step, 2)
        XCTAssertFalse(events.contains { $0.step == 1 }, "step 1 was done again")
        XCTAssertFalse(events.contains { $0.stage == .create }, "step 2's create stage was done again")
        XCTAssertEqual(summary.redoneRows, 0, "relate redoes nothing that needs undoing")
        try assertSameStore(destination, reference)
    }

    func testRestartDiscardsTheCheckpoint() throws {
        let destination = folder.path("v3.sqlite")
        try interrupted { try run(destination, stopWhen: stop(step: 1, stage: .relate, atLeast: 0.5)) }
        let (_, events) = try run(destination, restart: true)
        XCTAssertNotEqual(events.first?.kind, .resumed)
        XCTAssertTrue(events.contains { $0.step == 1 && $0.stage == .create })
        try assertSameStore(destination, reference)
    }

    /// Each way a checkpoint can stop fitting gets its own error, and changes nothing.
    func testEditedPipelineReplacedSourceAndDamagedCheckpointAreRefused() throws {
        let destination = folder.path("v3.sqlite")
        try interrupted { try run(destination, stopWhen: stop(step: 1, stage: .relate, atLeast: 0.5)) }
        let file = CheckpointFile(destination: destination)
        let saved = try bytes(file.path)
        let workFiles = try folder.files()

        func assertUnchanged(file line: UInt = #line) throws {
            XCTAssertEqual(try bytes(CheckpointFile(destination: destination).path), saved, line: line)
            XCTAssertEqual(try folder.files(), workFiles, line: line)
        }

        // An edited pipeline (same mappings, one more option): its fingerprint changed.
        let edited = folder.path("edited.json")
        var text = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "\"models/", with: "\"\(repositoryPath("pipelines/models"))/")
            .replacingOccurrences(of: "\"chunkSize\": 1000", with: "\"chunkSize\": 999")
        try Data(text.utf8).write(to: URL(fileURLWithPath: edited))
        XCTAssertThrowsError(try run(destination, pipeline: edited)) { error in
            XCTAssertTrue("\(error)".contains("belongs to a different run"), "\(error)")
            XCTAssertTrue("\(error)".contains("was edited"), "\(error)")
            XCTAssertTrue("\(error)".contains("--restart"), "\(error)")
        }
        try? FileManager.default.removeItem(atPath: edited)
        try assertUnchanged()

        // The source replaced by another store.
        let original = try bytes(source)
        try BooksSample.write(rows: 3000, seed: 12, to: source)
        XCTAssertThrowsError(try run(destination)) { error in
            XCTAssertTrue("\(error)".contains("source store \(source!) was modified or replaced"), "\(error)")
        }
        try original.write(to: URL(fileURLWithPath: source))
        // Same bytes but a new modification time still counts as a change: refuse rather than guess.
        XCTAssertThrowsError(try run(destination))
        try assertUnchanged()

        // A truncated checkpoint, and one with a flipped byte.
        try saved.prefix(saved.count / 2).write(to: URL(fileURLWithPath: file.path))
        XCTAssertThrowsError(try file.read()) { error in
            XCTAssertTrue("\(error)".contains("damaged or truncated"), "\(error)")
        }
        var flipped = saved
        flipped[flipped.count / 2] ^= 0x04
        try flipped.write(to: URL(fileURLWithPath: file.path))
        XCTAssertThrowsError(try run(destination)) { error in
            guard case MigrationError.badCheckpoint = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("--restart"), "\(error)")
        }
        XCTAssertEqual(try bytes(file.path), flipped, "a damaged checkpoint is reported, not replaced")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))

        // --restart is the way out.
        _ = try run(destination, restart: true)
        try assertSameStore(destination, reference)
    }
}
