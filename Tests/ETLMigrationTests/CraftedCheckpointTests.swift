import Foundation
import XCTest
@testable import ETLEngine
import ETLExpression
import ETLStore
import ETL

/// A checkpoint is a file anyone can write: zstd and JSON well formed, identity right, and
/// every field whatever the writer liked. Given a run stopped midway and its checkpoint
/// rewritten, when the run is resumed, then it is refused with the field named — no trap,
/// and no store installed that validation did not pass.
final class CraftedCheckpointTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    var destination: String!

    override func setUpWithError() throws { (folder, source, destination) = try givenBooksStore(rows: 600, seed: 3) }

    override func tearDown() { folder = nil }

    func migration() -> Migration {
        var migration = booksMigration(source: source, destination: destination, chunkSize: 20, workers: 1)
        migration.pushdown = false
        migration.options.fuseSteps = false  // checkpoints of each of the two steps
        return migration
    }

    /// Stops the run once `mapping` of step `step` (1-based) loaded half its rows; returns the checkpoint.
    func stop(inStep step: Int, stage: Stage = .create, mapping: String) throws -> Checkpoint {
        var migration = migration()
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.step == step, event.stage == stage, event.mapping == mapping, event.kind == .advanced, event.done * 2 >= event.total {
                cancellation.cancel()
            }
        })
        return try XCTUnwrap(CheckpointFile(destination: destination).read())
    }

    /// Writes `checkpoint` changed by `change`, resumes, and expects a refusal containing `parts`.
    func assertRefused(_ checkpoint: Checkpoint, _ parts: [String], file: StaticString = #filePath, line: UInt = #line,
                       _ change: (inout Checkpoint) -> Void) throws {
        var crafted = checkpoint
        change(&crafted)
        try CheckpointFile(destination: destination).write(crafted, durable: false)
        assertMigrationError(try migration().run(), contains: ["checkpoint", "cannot be used"] + parts, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "a store was installed", file: file, line: line)
    }

    func testFieldsOutOfTheirPlanAreRefused() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        XCTAssertEqual(checkpoint.position.step, 1)
        try assertRefused(checkpoint, ["names step 7 of a pipeline with 2 steps"]) { $0.position.step = 6 }
        try assertRefused(checkpoint, ["names step"]) { $0.position.step = -1 }
        try assertRefused(checkpoint, ["names mapping 100 of step v2 to v3"]) { $0.position.mapping = MappingID(99) }
        // The largest numbers a file can hold are refused too, never an overflow trap.
        try assertRefused(checkpoint, ["names step 9223372036854775808 of a pipeline with 2 steps"]) { $0.position.step = .max }
        try assertRefused(checkpoint, ["names mapping 9223372036854775808 of step v2 to v3"]) { $0.position.mapping = MappingID(.max) }
        var beyond = checkpoint
        beyond.position.step = .max
        XCTAssertTrue(beyond.summary.hasPrefix("step 9223372036854775808/2 (not in this checkpoint), create"), beyond.summary)
        try assertRefused(checkpoint, ["its next key of File, 9223372036854775807, leaves no key"]) { $0.nextKeys["File"] = .max }
        try assertRefused(checkpoint, ["its next key of File, 0"]) { $0.nextKeys["File"] = 0 }
        try assertRefused(checkpoint, ["next key for Nowhere"]) { $0.nextKeys["Nowhere"] = 5 }
        try assertRefused(checkpoint, ["counters for the"]) { $0.counters.removeLast() }
        try assertRefused(checkpoint, ["its progress (-5 of"]) { $0.position.done = -5 }
        try assertRefused(checkpoint, ["relate position names target 99"]) {
            $0.position.stage = .relate
            $0.position.progress = .linked(target: TargetID(99), destination: 1, source: 1, item: 1)
        }
        // The untouched checkpoint still resumes: the checks refuse only what is out of range.
        try CheckpointFile(destination: destination).write(checkpoint, durable: false)
        XCTAssertNotNil(try migration().run().resumed)
    }

    /// Numbers a resume adds to, divides or sums: at the top of their range, refused by name
    /// (`done = 2^63 - 1, total = 1` trapped in the progress display on every rerun).
    func testCountsAtTheTopOfTheirRangeAreRefused() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        try assertRefused(checkpoint, ["its progress (9223372036854775807 of 1) is not a count from 0 to 281474976710656"]) {
            $0.position.done = .max
            $0.position.total = 1
        }
        try assertRefused(checkpoint, ["of 9223372036854775807) is not a count"]) { $0.position.total = .max }
        try assertRefused(checkpoint, ["its counter written of Files, 9223372036854775807"]) { $0.counters[$0.counters.count - 1].written = .max }
        try assertRefused(checkpoint, ["its counter read of", "-1"]) { $0.finished[0].read = -1 }
        try assertRefused(checkpoint, ["its time spent on", "1e+300 s, is not a duration"]) { $0.counters[0].seconds = 1e300 }
        // Ahead of its total (a source that grew) is not out of range.
        var ahead = checkpoint
        ahead.position.done = ahead.position.total + 5
        try CheckpointFile(destination: destination).write(ahead, durable: false)
        XCTAssertNotNil(try migration().run().resumed)
    }

    /// A position's key array whose length does not fit its stage: refused as the file is read.
    func testAKeyThatDoesNotFitItsStageIsRefused() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        for (stage, key, reason) in [("create", [1, 2], "its create position has 2 keys, not one"),
                                     ("relate", [1, 2, 3], "its relate position has 3 keys"),
                                     ("validate", [7], "its validate position names a key")] as [(String, [Int64], String)] {
            var json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder.checkpoint.encode(checkpoint)) as? [String: Any])
            var position = try XCTUnwrap(json["position"] as? [String: Any])
            position["stage"] = stage
            position["key"] = key
            json["position"] = position
            let frame = try Zstd.compress(Array(try JSONSerialization.data(withJSONObject: json)))
            try Data(frame).write(to: URL(fileURLWithPath: CheckpointFile(destination: destination).path))
            assertMigrationError(try migration().run(), contains: ["checkpoint", "cannot be used", reason])
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        }
    }

    /// On disk each progress is format 1's key array, so a checkpoint an earlier etl wrote resumes.
    func testEachProgressIsTheKeyArrayOfFormatOne() throws {
        let cases: [(Stage, Checkpoint.Progress, [Int64])] = [
            (.create, .nothingYet, []),
            (.create, .loaded(lastSourceKey: -5), [-5]),
            (.relate, .linked(target: TargetID(2), destination: .min, source: 7, item: .max), [2, .min, 7, .max]),
            (.relate, .statementsDone(3), [3]),
            (.validate, .nothingYet, []),
        ]
        for (stage, progress, key) in cases {
            let position = Checkpoint.Position(step: 1, stage: stage, mapping: MappingID(0), progress: progress, done: 4, total: 9)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder.checkpoint.encode(position)) as? [String: Any])
            XCTAssertEqual(json["key"] as? [Int64], key, "\(progress)")
            let earlier = #"{"step": 1, "stage": "\#(stage.rawValue)", "mapping": 0, "key": \#(key), "done": 4, "total": 9}"#
            XCTAssertEqual(try JSONDecoder.checkpoint.decode(Checkpoint.Position.self, from: Data(earlier.utf8)), position)
        }
    }

    /// A key next to the end of the range: the next key handed out would overflow.
    func testANextKeyAtTheEndOfTheRangeEndsInAnErrorNotATrap() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        var crafted = checkpoint
        crafted.nextKeys["File"] = .max - 1
        try CheckpointFile(destination: destination).write(crafted, durable: false)
        assertMigrationError(try migration().run(), contains: ["table File has no key left to hand out after 9223372036854775807"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    /// "finalize" written mid-run: the half-built store holds no proof of validation.
    func testAFinalizeStageMidRunInstallsNothing() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        try assertRefused(checkpoint, ["but \(destination!).etl-tmp was never validated"]) {
            $0.position = .init(step: 1, stage: .finalize, mapping: MappingID(0), progress: .nothingYet, done: 0, total: 1)
        }
        try assertRefused(checkpoint, ["says step 1 of 2 is being installed"]) {
            $0.position = .init(step: 0, stage: .finalize, mapping: MappingID(0), progress: .nothingYet, done: 0, total: 1)
            $0.mappings = ["Users", "Books", "Authors"]
        }
    }

    /// "step 1 is done" written while it was half-built: step 2 would read a half store.
    func testTheStartOfTheNextStepMidStepReadsNothing() throws {
        let checkpoint = try stop(inStep: 1, mapping: "Books")
        XCTAssertEqual(checkpoint.position.step, 0)
        try assertRefused(checkpoint, ["continues after the validation of step 1", "etl-step1.tmp was never validated"]) {
            $0.position = .start(ofStep: 1)
            $0.mappings = ["Users", "Authors", "Books", "Files"]
        }
    }

    /// A create position past every key (2⁶³−1) skips the rest of the mapping's rows, and a
    /// relate stage with nothing done skips what create had left; the run's counters agree
    /// with what it did, so only counts taken from the source find the store partial.
    func testASkippedCreateIsFoundByCountsFromTheSource() throws {
        let checkpoint = try stop(inStep: 2, mapping: "Files")
        var crafted = checkpoint
        crafted.position.progress = .loaded(lastSourceKey: .max)
        try CheckpointFile(destination: destination).write(crafted, durable: false)
        assertMigrationError(try migration().run(), contains: ["validation failed", "entity File", "but the source holds", "counted in it, not in the run"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "a partial store was installed")
    }

    /// Given a run stopped at a random mapping of a random step, when its checkpoint's step,
    /// stage, mapping and position are set to random values (keys anywhere, 2⁶³−1, nothing
    /// done) and the run resumed, then it is refused, or it installs exactly the store of an
    /// uninterrupted run: never a partial one.
    func testEditedPositionsAndStagesNeverInstallAnotherStore() throws {
        let seed = TestSeed(default: 0xC4EC_7015, name: name)
        var random = SplitMix64(seed: seed.value)
        let referenceFolder: TemporaryFolder = folder  // kept while each trial gets a folder of its own
        let reference = referenceFolder.path("reference.sqlite")
        var whole = booksMigration(source: source, destination: reference, chunkSize: 20, workers: 1)
        whole.pushdown = false
        whole.options.fuseSteps = false
        _ = try whole.run()
        let stops = [(1, "Users"), (1, "Books"), (1, "Authors"), (2, "Users"), (2, "Books"), (2, "Files")]
        var installed = 0, foundByCounts = 0
        let trials = Int(ProcessInfo.processInfo.environment["ETL_CRAFTED_TRIALS"] ?? "") ?? 24
        for trial in 0..<trials {
            (folder, source, destination) = try givenBooksStore(rows: 600, seed: 3)
            let (step, mapping) = stops[Int(random.next() % UInt64(stops.count))]
            var crafted = try stop(inStep: step, mapping: mapping)
            // Mostly the step and a mapping the checkpoint's step has: the edits that could pass.
            if random.next() % 4 == 0 { crafted.position.step = Int(random.next() % 2) }
            crafted.position.stage = [Stage.create, .relate, .validate][Int(random.next() % 3)]
            crafted.position.mapping = MappingID(Int(random.next() % UInt64(crafted.mappings.count)))
            let key = [Int64(random.next() % 700) - 5, .max, .min, 0][Int(random.next() % 4)]
            switch (crafted.position.stage, random.next() % 3) {
            case (.create, 0), (.relate, 0), (.validate, _): crafted.position.progress = .nothingYet
            case (.create, _): crafted.position.progress = .loaded(lastSourceKey: key)
            case (.relate, 1): crafted.position.progress = .statementsDone(Int(random.next() % 6))
            default:
                crafted.position.progress = .linked(target: TargetID(Int(random.next() % 5)), destination: key, source: key, item: key)
            }
            try CheckpointFile(destination: destination).write(crafted, durable: false)
            let what = "trial \(trial): stopped in step \(step) at \(mapping), resumed from \(crafted.position); \(seed.replayHint)"
            do {
                _ = try migration().run()
            } catch {
                XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "\(what): failed (\(error)) but installed a store")
                if "\(error)".contains("counted in it, not in the run") { foundByCounts += 1 }
                continue
            }
            installed += 1
            try assertSameStore(destination, reference)
        }
        print("\(name): of \(trials) resumed runs, \(installed) installed a store, each the uninterrupted run's; "
              + "\(foundByCounts) were partial stores found by the counts from the source")
        withExtendedLifetime(referenceFolder) {}
    }
}
