import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL

/// Given a bundle of versions 1 … 4 and a store at version 2, when the pipeline's explicit
/// step goes past the target version, then planning and running are refused naming the step
/// (it was silently ignored); a step before the store's version is a note: other stores of
/// the archive take it.
final class StepPathTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func writeStore() throws -> String {
        let bundle = folder.url.appendingPathComponent("Notes.xcdatamodeld")
        let entity = ModelBundleFiles.model(#"<entity name="Note" representedClassName="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#)
        try ModelBundleFiles.write(bundle, versions: ["1", "2", "3", "4"].map { ($0, entity) }, current: "4")
        let v2 = try ModelBundle.load(path: bundle.path).versions.first { $0.version == "2" }!
        let source = folder.path("notes.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: v2).schemaSQL() { try db.execute(sql) }
        try db.execute("INSERT INTO Note (id, text) VALUES (1, 'a'), (2, 'b')")
        db.close()
        return source
    }

    func pipeline(target: String, step: (from: String, to: String)) throws -> String {
        try folder.pipeline("notes.json", """
            { "format": 1, "models": "Notes.xcdatamodeld",
              "source": { "store": "notes.sqlite", "version": "2" },
              "destination": { "store": "out.sqlite", "version": "\(target)" },
              "steps": [ { "from": "\(step.from)", "to": "\(step.to)", "mappings": [
                { "name": "Notes", "source": "Note", "destination": "Note", "attributes": { "text": "$source.text" } } ] } ] }
            """)
    }

    func testAStepPastTheTargetIsRefusedInPlanAndRun() throws {
        let source = try writeStore()
        let before = try bytes(source)
        let path = try pipeline(target: "3", step: ("3", "4"))
        for (what, body) in [("plan", { _ = try Migration(pipeline: path).plan() }), ("run", { _ = try Migration(pipeline: path).run() })] as [(String, () throws -> Void)] {
            do {
                try body()
                XCTFail("\(what): the step 3 → 4 past target 3 must be refused")
            } catch {
                let message = "\(error)"
                XCTAssertTrue(message.contains("$.steps[0]: step 3 to 4 goes 3 → 4, past the target version 3"), "\(what): \(message)")
            }
        }
        XCTAssertEqual(try bytes(source), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testAStepBeforeTheStoresVersionIsANote() throws {
        _ = try writeStore()
        let summary = try Migration(pipeline: try pipeline(target: "4", step: ("1", "2"))).run()
        XCTAssertTrue(summary.notes.contains("step 1 to 2 (1 → 2) is not on this store's path (2 → 3 → 4): not run"), "\(summary.notes)")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(text) FROM Note"), 2)
    }
}
