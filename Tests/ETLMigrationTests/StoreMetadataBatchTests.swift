import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLBatch
import ETLTestSupport

/// A batch of Core Data stores, one of whose metadata is hostile: that store fails with an
/// error naming it and its `Z_PLIST`, the next store (whose app keeps a 70,000-element
/// array in its metadata) migrates with its metadata whole.
final class StoreMetadataBatchTests: XCTestCase {
    func testAStoreWhoseMetadataCannotBeReadFailsAndTheBatchGoesOn() throws {
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("Notes.xcdatamodeld")
        let note = #"<entity name="Note" representedClassName="Note"><attribute name="title" optional="YES" attributeType="String"/>"#
        let body = #"<attribute name="body" optional="YES" attributeType="String"/>"#
        try ModelBundleFiles.write(bundle, versions: [("v1", ModelBundleFiles.model(note + "</entity>")),
                                                      ("v2", ModelBundleFiles.model(note + body + "</entity>"))], current: "v2")
        let v1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).versions.first { $0.version == "v1" })
        let layout = CoreDataLayout(model: v1)
        var stores: [BatchStore] = []
        for name in ["a-hostile.sqlite", "b-big-metadata.sqlite"] {
            let db = try Database(path: folder.path(name), mode: .create)
            for sql in layout.schemaSQL() { try db.execute(sql) }
            try db.run("INSERT INTO \(layout.table(of: "Note").name) (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'hello')")
            try layout.finish(db)
            db.close()
            stores.append(BatchStore(path: folder.path(name), relativePath: name))
        }
        let items = (0..<70_000).map { "item \($0)" }
        try editMetadata(folder.path("b-big-metadata.sqlite")) { plist in
            plist["com.example.items"] = items
            return Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
        }
        try editMetadata(folder.path("a-hostile.sqlite")) { plist in
            var builder = PropertyListBuilder()
            let text = builder.string(String(repeating: "x", count: 10_000))
            let inner = builder.array(Array(repeating: text, count: 999))
            let outer = builder.array(Array(repeating: inner, count: 999))
            let top = builder.dictionary([(builder.string("NSStoreType"), builder.string("SQLite")), (builder.string("com.example.bomb"), outer)])
            return builder.bytes(top: top)
        }
        let pipeline = try folder.pipeline("notes.json", """
            { "format": 1, "models": "Notes.xcdatamodeld",
              "source": { "store": "in.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" } }
            """)
        var options = BatchOptions(pipeline: pipeline, stores: stores, output: .directory(folder.path("out")),
                                   manifest: folder.path("manifest.jsonl"), jobs: 1)
        options.workers = 1
        let report = try Batch(options: options).run()
        let byName = Dictionary(uniqueKeysWithValues: report.stores.map { ($0.path, $0) })
        let failed = try XCTUnwrap(byName["a-hostile.sqlite"])
        XCTAssertEqual(failed.status, .failed)
        XCTAssertTrue(failed.error?.contains("a-hostile.sqlite") ?? false, failed.error ?? "no error")
        XCTAssertTrue(failed.error?.contains("Z_METADATA.Z_PLIST is not a readable binary property list") ?? false, failed.error ?? "no error")
        XCTAssertEqual(byName["b-big-metadata.sqlite"]?.status, .done, byName["b-big-metadata.sqlite"]?.error ?? "")
        let out = try Database(path: folder.path("out/b-big-metadata.sqlite"), mode: .readOnly)
        guard case .blob(let bytes)? = try out.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first,
              let plist = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: Any] else {
            return XCTFail("no metadata in the migrated store")
        }
        XCTAssertEqual(plist["com.example.items"] as? [String], items)
    }

    /// Rewrites a store's `Z_PLIST` from its current dictionary.
    func editMetadata(_ store: String, _ edit: (inout [String: Any]) throws -> [UInt8]) throws {
        let db = try Database(path: store, mode: .readWrite)
        defer { db.close() }
        guard case .blob(let bytes)? = try db.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first,
              var plist = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: Any] else {
            return XCTFail("no metadata in \(store)")
        }
        try db.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(try edit(&plist))])
    }
}
