import XCTest
import Foundation
import ETL
import ETLExpression

/// A plain store's version is detected among the pipeline's model files, as a Core Data
/// store's is among its bundle's versions.
extension CommandLineTests {
    /// The first step of pipelines/books.json, v1 → v2, as a pipeline of its own.
    func writeV1ToV2Pipeline() throws -> String {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("pipelines/books.json"))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let models = Self.root.appendingPathComponent("pipelines/models").path
        json["source"] = ["store": "v1.sqlite", "model": models + "/books-v1.json"]
        json["destination"] = ["store": "v2.sqlite", "model": models + "/books-v2.json"]
        var steps = try XCTUnwrap(json["steps"] as? [[String: Any]])
        steps[0].removeValue(forKey: "to")
        json["steps"] = [steps[0]]
        let path = folder.appendingPathComponent("v1-v2.json").path
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testABatchOfPlainStoresMigratesTheV1sAndSkipsTheV2s() throws {
        // Given an archive of three v1 stores and two v2 stores (made from v1 ones by the same pipeline)…
        let upgrade = try writeV1ToV2Pipeline()
        let archive = folder.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        for seed in 1...5 {
            try BooksSample.write(rows: 20 * seed, seed: UInt64(seed), to: folder.appendingPathComponent("made-\(seed).sqlite").path)
        }
        for seed in 1...3 {
            try FileManager.default.moveItem(atPath: folder.appendingPathComponent("made-\(seed).sqlite").path,
                                             toPath: archive.appendingPathComponent("v1-\(seed).sqlite").path)
        }
        for seed in 4...5 {
            let run = try etl("run", upgrade, "--source", "made-\(seed).sqlite", "--destination", "archive/v2-\(seed).sqlite")
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        // …inspect names each store's version among the model files…
        let models = ["books-v1", "books-v2", "books-v3"].flatMap { ["--models", Self.root.appendingPathComponent("pipelines/models/\($0).json").path] }
        let inspect = try run(["inspect", "archive/v2-4.sqlite"] + models)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("version  books-v2 (by schema)"), inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("columns: id INTEGER, name VARCHAR"), inspect.stdout)

        // …and the batch migrates the v1s and skips the v2s, which are up to date.
        let batch = try etl("batch", upgrade, "--stores", "archive", "--out", "out", "--report", "report.json")
        XCTAssertEqual(batch.status, 0, batch.stdout + batch.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("report.json"))) as? [String: Any]
        let stores = try XCTUnwrap(report?["stores"] as? [[String: Any]])
        let status = Dictionary(uniqueKeysWithValues: stores.map { ($0["path"] as? String ?? "?", $0["status"] as? String ?? "?") })
        XCTAssertEqual(status, ["v1-1.sqlite": "done", "v1-2.sqlite": "done", "v1-3.sqlite": "done", "v2-4.sqlite": "skipped", "v2-5.sqlite": "skipped"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/v2-4.sqlite").path))

        // The whole books pipeline takes a v2 store the one hop it still needs.
        let plan = try planJSON(try etl("plan", pipeline, "--source", "archive/v2-4.sqlite", "--json"))
        XCTAssertEqual(plan.sourceVersion, "books-v2")
        XCTAssertEqual(plan.hops.map(\.name), ["v2 to v3"])
        let run = try etl("run", pipeline, "--source", "archive/v2-4.sqlite", "--destination", "v3.sqlite", "--wide")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stdout.contains("v1 to v2"), run.stdout)
        XCTAssertTrue(run.stdout.contains("v2 to v3  Files"), run.stdout)
    }
}

extension CommandLineTests {
    func testInspectWithAModelFileAsJSON() throws {
        let store = Self.root.appendingPathComponent("data/books-v1.sqlite").path
        let result = try etl("inspect", store, "--models", Self.root.appendingPathComponent("pipelines/models/books-v1.json").path, "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["layout"] as? String, "plain")
        XCTAssertEqual(json["version"] as? String, "books-v1")
        XCTAssertEqual(json["versionEvidence"] as? String, "schema")
        let entities = try XCTUnwrap(json["entities"] as? [[String: Any]])
        let book = try XCTUnwrap(entities.first { $0["entity"] as? String == "Book" })
        XCTAssertEqual(book["rows"] as? Int, 2000)
        let columns = try XCTUnwrap(book["columns"] as? [[String: String]])
        XCTAssertEqual(columns.map { $0["name"] ?? "" }, ["id", "title", "authorName", "fileURL", "published", "price"])
        XCTAssertEqual(columns.first { $0["name"] == "fileURL" }?["type"], "URI VARCHAR")
    }
}
