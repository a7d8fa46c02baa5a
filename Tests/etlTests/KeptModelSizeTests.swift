import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// A store keeping a model nobody vouches for (`Z_MODELCACHE`) of 20,000 entities, each the
/// sub-entity of the one before (issue 45: `inspect`, `model from-store`, planning worked on
/// it for minutes). Each command runs under `timeout`, so that a slow read fails the test
/// (exit 124) instead of hanging it; what is asserted is the outcome.
extension CommandLineTests {
    /// The committed Core Data sample store, keeping `entities` as its model.
    func storeKeeping(_ entities: [KeptModelArchive.EntitySpec], name: String) throws -> String {
        let store = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Self.root.appendingPathComponent("data/books-v1-coredata.sqlite").path, toPath: store)
        let db = try Database(path: store, mode: .readWrite)
        try db.execute("CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB); DELETE FROM Z_MODELCACHE")
        try db.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(KeptModelArchive.content(entities))])
        db.close()
        return store
    }

    func timedEtl(_ arguments: [String]) throws -> ToolRun {
        try ToolProcess.run(["300", ToolProcess.executable("etl").path] + arguments, program: "/usr/bin/timeout", in: folder)
    }

    static func chain(_ count: Int, prefix: String = "E") -> [KeptModelArchive.EntitySpec] {
        (0..<count).map { .init(name: "\(prefix)\($0)", parent: $0 == 0 ? nil : "\(prefix)\($0 - 1)") }
    }

    func testAKeptModelOfTwentyThousandChainedEntitiesIsRefusedNamingTheStoreAndTheCount() throws {
        let store = try storeKeeping(Self.chain(20_000), name: "chain.sqlite")
        let reason = "Z_MODELCACHE is refused: it holds 20000 entities, more than the 10000 etl reads"

        let model = try timedEtl(["model", "from-store", store])
        XCTAssertEqual(model.status, 1, model.stderr)
        XCTAssertTrue(model.stderr.contains("\(store): \(reason)"), model.stderr)

        let inspect = try timedEtl(["inspect", store])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("kept in the store (Z_MODELCACHE): unreadable: \(store): \(reason)"), inspect.stdout)

        // Planning a pipeline whose source brings its own model: refused before a row is read.
        let pipeline = try FileManager.default.contentsOfFile(name: "kept.json", in: folder, """
            {"format": 1,
             "source": {"store": "\(store)", "layout": "coredata"},
             "destination": {"store": "out.sqlite", "model": "\(Self.root.appendingPathComponent("pipelines/models/books-v2.json").path)"}}
            """)
        let plan = try timedEtl(["plan", pipeline])
        XCTAssertNotEqual(plan.status, 124, "planning did not end")
        XCTAssertNotEqual(plan.status, 0)
        XCTAssertTrue(plan.stderr.contains(reason), plan.stderr)
        let batch = try timedEtl(["batch", pipeline, "--stores", store, "--out", folder.appendingPathComponent("batch").path, "--store-timeout", "30"])
        XCTAssertNotEqual(batch.status, 124, "the batch did not end")
        XCTAssertTrue((batch.stdout + batch.stderr).contains(reason), batch.stdout + batch.stderr)
    }

    /// 5,000 entities in chains 100 deep, within every bound: read whole, in time linear in
    /// its entities (the cubic reader never ended on it).
    func testAKeptModelOfManyDeepChainsWithinTheBoundsIsRead() throws {
        let store = try storeKeeping((0..<50).flatMap { Self.chain(100, prefix: "C\($0)_") }, name: "chains.sqlite")
        let model = try timedEtl(["model", "from-store", store])
        XCTAssertEqual(model.status, 0, model.stderr)
        let written = try ModelFile.decode(JSONCursor.parse(Array(model.stdout.utf8), file: "stdout"))
        XCTAssertEqual(written.entities.count, 5_000)
        XCTAssertEqual(written.root(of: "C49_99"), "C49_0")
        let inspect = try timedEtl(["inspect", store])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("Z_MODELCACHE"), inspect.stdout)
    }
}

private extension FileManager {
    func contentsOfFile(name: String, in folder: URL, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
