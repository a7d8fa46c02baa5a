import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// Given CoreDataPlus's SampleModel V1 store (125 cars, WAL mode) with a table of an app's
/// own (`ZOTHER`), a trigger on it that deletes every car, a trigger on `ZCAR` and a view,
/// all carried, when `etl run` is killed (SIGKILL) at moments over every stage, the finalize
/// stage's carry and rename among them, and run again, then the store installed is the
/// uninterrupted run's (125 cars, the same rows and schema objects): carried objects are made
/// once, and no carried trigger fires during a run or a resume. The source folder is left as
/// it was found (no `-wal` or `-shm` beside the source), its bytes the same.
final class CarriedKillTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }
    var seed: TestSeed?

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-carry-kill") }
    override func tearDown() { temporary = nil }

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let hint = seed.map { " (\($0.replayHint))" } ?? ""
        super.recordFailure(withDescription: description + hint, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The source (in `sample/`) and the pipeline carrying everything into `destination`.
    func setUpSource() throws -> (source: String, pipeline: String) {
        let sample = folder.appendingPathComponent("sample")
        let source = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel/SampleModel_V1.sqlite", into: sample).path
        let bundle = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel/SampleModel.xcdatamodeld", into: sample).path
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("""
            CREATE TABLE ZOTHER (id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO ZOTHER VALUES (1, 'kept'), (2, 'also kept');
            CREATE INDEX ZOTHER_note ON ZOTHER (note);
            CREATE TRIGGER wipe_cars AFTER INSERT ON ZOTHER BEGIN DELETE FROM ZCAR; END;
            CREATE TRIGGER car_seen AFTER UPDATE ON ZCAR BEGIN INSERT INTO ZOTHER (note) VALUES ('car ' || NEW.Z_PK); END;
            CREATE VIEW cars_by_maker AS SELECT ZMAKER, count(*) AS n FROM ZCAR GROUP BY ZMAKER;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        db.close()
        for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: source + companion) }
        let pipeline = path("carry.json")
        try Data("""
            { "format": 1, "models": "\(bundle)", "drop": ["Person.id"], "otherTables": "carry", "triggers": "carry", "views": "carry",
              "source": { "store": "\(source)", "layout": "coredata", "version": "SampleModel" },
              "destination": { "store": "\(path("given.sqlite"))", "layout": "coredata", "version": "SampleModel2" } }
            """.utf8).write(to: URL(fileURLWithPath: pipeline))
        return (source, pipeline)
    }

    func schema(_ store: String) throws -> [[SQLValue]] {
        try Database(path: store, mode: .readOnly).rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")
    }

    func testKilledAtRandomMomentsTheCarryIsMadeOnceAndNeverFires() throws {
        let (source, pipeline) = try setUpSource()
        let sourceBytes = try bytes(source)
        let sourceFolder = try FileManager.default.contentsOfDirectory(atPath: (source as NSString).deletingLastPathComponent).sorted()
        let seed = TestSeed(fixedFor: name)
        self.seed = seed
        var random = SplitMix64(seed: seed.value)
        func run(_ destination: String, killAt target: KillTarget?) throws -> ToolRun {
            let arguments = ["run", pipeline, "--destination", destination, "--progress", "json", "--chunk-size", "10"]
            guard let target else { return try ToolProcess.run(arguments) }
            return try ToolProcess.run(arguments, killAt: target, pause: target.randomPause(&random))
        }
        let reference = path("reference.sqlite")
        let uninterrupted = try run(reference, killAt: nil)
        XCTAssertEqual(uninterrupted.status, 0, uninterrupted.stderr)
        XCTAssertEqual(try Database(path: reference, mode: .readOnly).scalarInt("SELECT count(*) FROM ZCAR"), 125)

        let targets = [
            KillTarget(step: 1, stage: "create", fraction: 0, pause: 20_000),
            KillTarget(step: 1, stage: "relate", fraction: 0, pause: 20_000),
            KillTarget(step: 1, stage: "validate", fraction: 0, pause: 20_000),
            KillTarget(step: 1, stage: "finalize", kind: "started", fraction: 0, pause: 30_000),
            KillTarget(step: 1, stage: "finalize", kind: "started", fraction: 0, pause: 5_000),
        ]
        var kills = 0
        var chain = 0
        while kills < 30, chain < 60 {
            chain += 1
            let destination = path("out-\(chain).sqlite")
            var finished = false
            for _ in 0..<3 {
                let target = targets[random.below(targets.count)]
                let outcome = try run(destination, killAt: target)
                if outcome.killed {
                    kills += 1
                } else {
                    finished = ranToTheEnd(outcome, destination: destination)
                    XCTAssertTrue(finished, "run aimed at \(target) failed:\n\(outcome.stderr.suffix(2000))")
                    break
                }
            }
            if !finished {
                let last = try run(destination, killAt: nil)
                assertFinishesAfterTheKills(last, destination: destination)
            }
            XCTAssertEqual(try Database(path: destination, mode: .readOnly).scalarInt("SELECT count(*) FROM ZCAR"), 125, "chain \(chain)")
            try assertSameStore(destination, reference)
            XCTAssertEqual(try schema(destination), try schema(reference), "chain \(chain): the same tables, indexes, triggers and views")
            XCTAssertEqual(try bytes(source), sourceBytes, "the source is byte-identical")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: (source as NSString).deletingLastPathComponent).sorted(), sourceFolder,
                           "chain \(chain): the source's folder as it was found (no -wal or -shm left by a killed run)")
        }
        XCTAssertGreaterThanOrEqual(kills, 30, "too few kills landed in \(chain) chains")
    }
}
