import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLBatch

/// Given a Core Data store of photos whose `data` allows external storage (one value
/// inline, two in `.photos_SUPPORT/_EXTERNAL_DATA`, one marker whose file is missing),
/// when it is migrated, then every value arrives byte for byte, expressions see the real
/// bytes (not the marker), the marker whose file is missing is carried as it is where the
/// value is passed through (counted in the run's notes, as Core Data carries it) and is a
/// reject naming the store, row and file where the value must be read, and the source's
/// folder is untouched.
final class ExternalStorageTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    let external1 = "0F6C2D3E-5A4B-4C3D-9E8F-1A2B3C4D5E6F"
    let external2 = "7A8B9C0D-1E2F-4A3B-8C4D-5E6F7A8B9C0D"
    let missing = "DEADBEEF-0000-4000-8000-000000000000"
    /// The bytes of each photo, by key (4: its file is missing; 5: null).
    var photos: [Int64: [UInt8]] = [
        1: [1, 2, 3],
        2: (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) },
        3: Array("a photo kept in a file".utf8),
    ]

    func writeStore() throws -> String {
        let bundle = folder.url.appendingPathComponent("Photos.xcdatamodeld")
        let photo = #"""
            <entity name="Photo" representedClassName="Photo">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="data" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            """#
        let size = #"<attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>"#
        try ModelBundleFiles.write(bundle, versions: [("v1", ModelBundleFiles.model(photo + "</entity>")),
                                                      ("v2", ModelBundleFiles.model(photo + size + "</entity>"))], current: "v2")
        let v1 = try ModelBundle.load(path: bundle.path).versions.first { $0.version == "v1" }!
        XCTAssertTrue(v1.attribute("data", of: "Photo")?.allowsExternalStorage ?? false, "the model reader keeps the flag")

        let store = folder.path("photos.sqlite")
        let layout = CoreDataLayout(model: v1)
        let db = try Database(path: store, mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        let table = layout.table(of: "Photo").name
        let column = layout.column(ofAttribute: "data", entity: "Photo")
        let insert = try db.prepare("INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, ZNAME, \(column)) VALUES (?, 1, 1, ?, ?)")
        let marked: [Int64: SQLValue] = [
            1: .blob([0x01] + photos[1]!),
            2: .blob([0x02] + Array(external1.utf8)),
            3: .blob([0x02] + Array(external2.utf8) + [0]),  // NUL-terminated, as Core Data may write it
            4: .blob([0x02] + Array(missing.utf8)),
            5: .null,
        ]
        for key in Int64(1)...5 { try insert.run([.integer(key), .text("photo \(key)"), marked[key]!]) }
        try layout.finish(db)
        db.close()
        let files = folder.url.appendingPathComponent(".photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data(photos[2]!).write(to: files.appendingPathComponent(external1))
        try Data(photos[3]!).write(to: files.appendingPathComponent(external2))
        return store
    }

    func pipeline(_ steps: String) throws -> String {
        try folder.pipeline("photos.json", """
            { "format": 1, "models": "Photos.xcdatamodeld", "options": { "maxRejects": 1 },
              "source": { "store": "photos.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" }\(steps) }
            """)
    }

    /// The source folder's files and their bytes.
    func sourceFolder() throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = folder.url.appendingPathComponent(".photos_SUPPORT")
        for case let path as String in FileManager.default.enumerator(atPath: base.path)! {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[path] = try Data(contentsOf: base.appendingPathComponent(path))
            }
        }
        out["photos.sqlite"] = try Data(contentsOf: folder.url.appendingPathComponent("photos.sqlite"))
        return out
    }

    /// What the destination holds for each photo: the file ones still in files (their
    /// markers, the files in the destination's own folder), the inline one inline, photo 4's
    /// marker as the source has it (no file: the source had none), said in the notes unless
    /// the run only finished an installed store's cleanup (`noted` false).
    func assertArrived(_ summary: RunSummary, store: String = "out.sqlite", noted: Bool = true, line: UInt = #line) throws {
        let out = try Database(path: folder.path(store), mode: .readOnly)
        let files = ExternalBinaryStorage.folder(ofStore: folder.path(store))
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 1"), [[.blob([0x01] + photos[1]!)]], "inline stays inline", line: line)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 2"), [[.blob([0x02] + Array(external1.utf8))]], line: line)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 3"), [[.blob([0x02] + Array(external2.utf8) + [0])]], line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: files + "/" + external1)), Data(photos[2]!), "in the destination's folder", line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: files + "/" + external2)), Data(photos[3]!), line: line)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 5"), [[.null]], line: line)
        XCTAssertEqual(try out.rows("SELECT ZNAME, ZDATA FROM ZPHOTO WHERE Z_PK = 4"), [[.text("photo 4"), .blob([0x02] + Array(missing.utf8))]],
                       "the marker carried as it is", line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: files + "/" + missing), line: line)
        XCTAssertNil(summary.rejectFile, "nothing rejected", line: line)
        if noted {
            XCTAssertTrue(summary.notes.contains { $0.contains("1 value of Photo.data keeps an external-data marker whose file the source store already lacked") },
                          "\(summary.notes)", line: line)
        }
        XCTAssertEqual(try folder.files().filter { $0.contains("etl") }, [], "no work file or folder left", line: line)
    }

    func testAnInferredHopCarriesEveryValueByteForByte() throws {
        _ = try writeStore()
        let before = try sourceFolder()
        let summary = try Migration(pipeline: try pipeline("")).run()
        try assertArrived(summary)
        XCTAssertEqual(try sourceFolder(), before, "the source store and its folder are unchanged")
        XCTAssertTrue(summary.notes.contains { $0.contains("ran row by row") && $0.contains("external") || $0.contains("no exact SQL form") },
                      "\(summary.notes)")
    }

    /// An explicit hop whose expressions read the bytes: they see the photo, not the marker;
    /// a value an expression makes is new, and written inline.
    func testExpressionsSeeTheRealBytesAndNewValuesAreInline() throws {
        _ = try writeStore()
        let summary = try Migration(pipeline: try pipeline("""
            , "steps": [ { "from": "v1", "to": "v2", "mappings": [ { "source": "Photo", "destination": "Photo",
                "attributes": { "name": "$source.name", "data": "if(length($source.data) > 3, $source.data, null)", "size": "length($source.data)" } } ] } ]
            """)).run()
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT Z_PK, ZSIZE FROM ZPHOTO ORDER BY Z_PK"),
                       [[.integer(1), .integer(3)], [.integer(2), .integer(5000)], [.integer(3), .integer(22)], [.integer(5), .null]])
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 2"), [[.blob([0x01] + photos[2]!)]], "made by an expression: inline")
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 1"), [[.null]])
        XCTAssertEqual(try RejectFile.read(XCTUnwrap(summary.rejectFile)).map(\.key), [4])
    }

    /// A policy reads the bytes through its source row: the photo, never the marker. The
    /// values it leaves arrive byte for byte (inline: a policy may change them).
    func testAPolicyReadsTheRealBytes() throws {
        _ = try writeStore()
        let measure = Policy(create: { photo, output in
            guard case .binary(let bytes) = photo["data"] else { return }
            output.rows[0].values["size"] = .integer(Int64(bytes.count))
            output.rows[0].values["name"] = .string(bytes.first == 0x02 ? "a marker" : "photo \(photo.key)")
        })
        let summary = try Migration(pipeline: try pipeline("""
            , "steps": [ { "from": "v1", "to": "v2", "mappings": [ { "source": "Photo", "destination": "Photo", "policy": "measure",
                "attributes": { "name": "$source.name", "data": "$source.data" } } ] } ]
            """), policies: ["measure": measure]).run()
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT Z_PK, ZNAME, ZSIZE FROM ZPHOTO ORDER BY Z_PK"), [
            [.integer(1), .text("photo 1"), .integer(3)], [.integer(2), .text("photo 2"), .integer(5000)],
            [.integer(3), .text("photo 3"), .integer(22)], [.integer(5), .text("photo 5"), .null],
        ], "the row a policy leaves of each photo keeps its key: photo 5 stays 5 after the rejected photo 4")
        for key in Int64(1)...3 {
            XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = \(key)"), [[.blob([0x01] + photos[key]!)]], "photo \(key)")
        }
        XCTAssertEqual(try RejectFile.read(XCTUnwrap(summary.rejectFile)).map(\.key), [4])
    }

    /// Stopped after the first chunk (a file already linked), then run again: the same
    /// store and files as an uninterrupted run, no file copied twice.
    func testAStopAndAResumeGiveTheSameResult() throws {
        _ = try writeStore()
        let cancellation = Cancellation()
        var migration = Migration(pipeline: try pipeline(""))
        migration.chunkSize = 2
        migration.workers = 1
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.stage == .create, event.kind == .advanced { cancellation.cancel() }
        }) { error in
            guard case MigrationError.interrupted = error else { return XCTFail("expected interrupted, got \(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
        let linked = folder.path("out.sqlite.etl-tmp.external/\(external1)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: linked), "the first chunk's file is there")
        let inode = try FileManager.default.attributesOfItem(atPath: linked)[.systemFileNumber] as? NSNumber
        var resume = Migration(pipeline: try pipeline(""))
        resume.chunkSize = 2
        let summary = try resume.run()
        try assertArrived(summary)
        let installed = try FileManager.default.attributesOfItem(atPath: ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite")) + "/" + external1)
        XCTAssertEqual(installed[.systemFileNumber] as? NSNumber, inode, "the same file, linked once, never copied again")
    }

    /// Killed just after the new store was renamed into place, before the cleanup (here: the
    /// folder put back as the kill would have left it), the rerun only finishes the cleanup,
    /// and every file (and the marker without one) is where it was.
    func testARerunAfterTheRenameKeepsTheFiles() throws {
        _ = try writeStore()
        let left = folder.url.appendingPathComponent("left by the kill")
        try FileManager.default.createDirectory(at: left, withIntermediateDirectories: true)
        let folder = self.folder!
        _ = try Migration(pipeline: try pipeline("")).run { event in
            guard event.stage == .finalize, event.kind == .finished else { return }
            for name in (try? folder.files()) ?? [] where name.hasPrefix("out.sqlite.") {
                try? FileManager.default.copyItem(atPath: folder.path(name), toPath: left.appendingPathComponent(name).path)
            }
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: left.path)
        XCTAssertTrue(kept.contains("out.sqlite.etl-checkpoint"), "\(kept)")
        for name in kept {
            try? FileManager.default.removeItem(atPath: folder.path(name))
            try FileManager.default.moveItem(atPath: left.appendingPathComponent(name).path, toPath: folder.path(name))
        }
        try FileManager.default.removeItem(at: left)

        let summary = try Migration(pipeline: try pipeline("")).run()
        XCTAssertNotNil(summary.resumed, "the rerun continues the finished run")
        try assertArrived(summary, noted: false)
    }

    /// Run again over the result with a backup: the backup's folder keeps the old files, and
    /// the new store finds its own.
    func testABackupKeepsItsFilesToo() throws {
        _ = try writeStore()
        _ = try Migration(pipeline: try pipeline("")).run()
        var again = Migration(pipeline: try pipeline(""))
        again.replace = .backup
        let summary = try again.run()
        try assertArrived(summary)
        let backupFiles = ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite.bak"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: backupFiles).sorted(), [external1, external2].sorted())
    }

    /// Replaced with a backup by a store whose values are all inline (made by an expression):
    /// the backup still finds its files, though the new store brings none.
    func testABackupKeepsItsFilesWhenTheNewStoreHasNone() throws {
        _ = try writeStore()
        _ = try Migration(pipeline: try pipeline("")).run()
        var again = Migration(pipeline: try pipeline("""
            , "steps": [ { "from": "v1", "to": "v2", "mappings": [ { "source": "Photo", "destination": "Photo",
                "attributes": { "name": "$source.name", "data": "if(length($source.data) > 0, $source.data, null)" } } ] } ]
            """))
        again.replace = .backup
        _ = try again.run()
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 2"), [[.blob([0x01] + photos[2]!)]], "inline now")
        let backupFiles = ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite.bak"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: backupFiles).sorted(), [external1, external2].sorted())
        XCTAssertEqual(try folder.files().filter { $0.contains("etl") }, [], "no work file or folder left")
    }

    /// `etl inspect` counts the external files and names a marker without its file.
    func testInspectReportsExternalFilesAndMissingOnes() throws {
        let store = try writeStore()
        let report = try StoreInspection.inspect(path: store, bundle: folder.path("Photos.xcdatamodeld"))
        XCTAssertEqual(report.externalFiles, 2)
        XCTAssertEqual(report.externalBytes, Int64(photos[2]!.count + photos[3]!.count))
        XCTAssertEqual(report.missingExternalFiles.count, 1)
        XCTAssertTrue(report.missingExternalFiles.first?.hasPrefix("Photo row 4: its externally stored bytes are missing: no file ") ?? false,
                      "\(report.missingExternalFiles)")
        XCTAssertEqual(report.unmodeledTables, [])
    }

    /// `batch --in-place --backup-dir`: the store replaced, its new store finding every
    /// file, the original in the backup folder with its files beside it.
    func testBatchInPlaceMovesTheFilesWithTheStores() throws {
        let store = try writeStore()
        let before = try sourceFolder()
        var batch = BatchOptions(pipeline: try pipeline(""), stores: [BatchStore(path: store, relativePath: "photos.sqlite")],
                          output: .inPlace(backupDirectory: folder.path("backups")), manifest: folder.path("manifest.jsonl"), jobs: 1)
        batch.workers = 1
        _ = try Batch(options: batch).run()
        let out = try Database(path: store, mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 2"), [[.blob([0x02] + Array(external1.utf8))]])
        XCTAssertNotNil(try out.table(named: "ZPHOTO").flatMap { $0.column(named: "ZSIZE") }, "upgraded to v2")
        let files = ExternalBinaryStorage.folder(ofStore: store)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: files + "/" + external1)), Data(photos[2]!))
        let backup = folder.path("backups/photos.sqlite")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: backup)), before["photos.sqlite"], "the original, unchanged")
        let backupFiles = ExternalBinaryStorage.folder(ofStore: backup)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: backupFiles + "/" + external2)), Data(photos[3]!), "its files beside it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ExternalBinaryStorage.supportFolder(ofStore: store + ".bak")), "no stray folder")
    }
}
