import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// Given a Core Data store of 400 photos whose `data` allows external storage (every
/// fourth inline, the others in `.photos_SUPPORT/_EXTERNAL_DATA`, one marker whose file is
/// missing), when `etl run` takes it through an inferred hop and an explicit one and is
/// killed with SIGKILL while files are linked into the work folder, just before and during
/// the linking into the destination's folder, and after the rename, then each rerun of the
/// same command ends with the store and the files of an uninterrupted run, no
/// file copied twice, the source's folder untouched.
final class ExternalStorageKillResumeTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }
    /// Where the source store and its folder are: the test's folder, or another file system.
    var sourceFolder: URL!

    override func setUpWithError() throws {
        temporary = try TemporaryFolder(prefix: "etl-kill-external")
        sourceFolder = folder
    }

    override func tearDown() {
        if sourceFolder != folder { try? FileManager.default.removeItem(at: sourceFolder) }
        temporary = nil
    }

    /// The kill moments are random within each target; every failure names the seed, and
    /// `ETL_TEST_SEED` replays it.
    var seed: TestSeed?

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        let hint = seed.map { " (\($0.replayHint))" } ?? ""
        super.recordFailure(withDescription: description + hint, inFile: filePath, atLine: lineNumber, expected: expected)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static let photoCount = 400
    /// The photo whose marker names a file that does not exist: carried as it is in every run
    /// (its value is passed through), never a reject.
    static let missingKey: Int64 = 7

    /// Where to kill: the first event of this step and stage (of `kind`, if given) at or past
    /// `fraction`, then after a random pause of up to `pause` microseconds.
    typealias Target = KillTarget

    /// Source and destination on one file system: every file is a hard link to the source's.
    func testKilledWhileLinkingAndInstallingFilesResumesToTheSameStoreAndFiles() throws {
        try killAndResume()
    }

    /// The source on another file system (tmpfs): its files are copied into the work folder,
    /// and kills land inside copies too; still no file is copied twice.
    func testKilledWhileCopyingFilesFromAnotherFileSystemResumesToTheSameStoreAndFiles() throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        guard let here = fileSystem(of: folder.path), let there = fileSystem(of: shm.path), here != there else {
            throw XCTSkip("no second file system at /dev/shm")
        }
        sourceFolder = shm.appendingPathComponent("etl-kill-external-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: sourceFolder, withIntermediateDirectories: true)
        try killAndResume()
    }

    /// `--backup` over an earlier result of another store: kills also land between keeping
    /// the old store's files beside `out.sqlite.bak` and the rename. The backup ends as the
    /// old store with its own files; the destination's folder holds the old files and the new.
    func testKilledWhileReplacingWithABackupKeepsTheOldStoreAndItsFiles() throws {
        try killAndResume(replacing: true)
    }

    func killAndResume(replacing: Bool = false) throws {
        try writeModel()
        try writeStore(named: "photos.sqlite", photos: Self.photoCount, salt: 0)
        let pipeline = try writePipeline()
        let seed = TestSeed(default: 0xE7_7E51, name: name)
        self.seed = seed
        var random = SplitMix64(seed: seed.value)
        let source = sourceFolder.appendingPathComponent("photos.sqlite").path
        let before = try supportFiles(ofStore: source)
        let sourceBytes = try bytes(source)
        let common = ["run", pipeline, "--source", source, "--chunk-size", "20", "--workers", "2", "--progress", "json"]

        let reference = try ToolProcess.run(common + ["--destination", path("reference.sqlite")])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let destination = path("out.sqlite")
        var options: [String] = []
        var oldFiles: [String: SupportFile] = [:]
        var oldBytes = Data()
        if replacing {
            try writeStore(named: "old.sqlite", photos: 200, salt: 1)
            let old = sourceFolder.appendingPathComponent("old.sqlite").path
            let earlier = try ToolProcess.run(["run", pipeline, "--source", old, "--destination", destination])
            XCTAssertEqual(earlier.status, 0, earlier.stderr)
            oldFiles = try supportFiles(ofStore: destination)
            oldBytes = try bytes(destination)
            XCTAssertEqual(oldFiles.count, 149)
            options = ["--backup"]
        }

        // Finalize only links files, so its pauses are short: the kill must land between the
        // event and the rename, not after the process has exited.
        let targets = [
            Target(step: 1, stage: "create", fraction: 0.2, pause: 15_000),
            Target(step: 1, stage: "create", fraction: 0.7, pause: 15_000),
            Target(step: 2, stage: "create", fraction: 0, pause: 2_000),
            Target(step: 2, stage: "create", fraction: 0.5, pause: 15_000),
            Target(step: 2, stage: "finalize", kind: "started", pause: 0),
            Target(step: 2, stage: "finalize", kind: "started", pause: 1_500),
            Target(step: 2, stage: "finalize", kind: "started", pause: 3_000),
            Target(step: 2, stage: "finalize", kind: "finished", pause: 0),
        ]
        var kills = 0
        var landed: [String] = []
        // Each complete file seen in a work folder or the destination's, by name: a file
        // copied again would show up under another inode.
        var seen: [String: UInt64] = [:]
        var finished = false
        for target in targets {
            let pause = target.randomPause(&random)
            let outcome = try ToolProcess.run(common + options + ["--destination", destination], killAt: target, pause: pause)
            if outcome.killed {
                kills += 1
                landed.append("\(target) + \(pause) µs: \(try whereTheKillLanded(destination))")
                // Killed after its very last act (removing the checkpoint), a run has finished:
                // run again with --backup, it would start anew and back up its own result.
                if replacing, !FileManager.default.fileExists(atPath: destination + ".etl-checkpoint"),
                   try bytes(destination) != oldBytes {
                    finished = true
                }
                for folder in [destination + ".etl-step1.tmp.external", destination + ".etl-tmp.external", ExternalBinaryStorage.folder(ofStore: destination)] {
                    for (name, inode) in inodes(in: folder) {
                        XCTAssertEqual(seen[name] ?? inode, inode, "\(name) copied twice (in \(folder), after the kill at \(target))")
                        seen[name] = inode
                    }
                }
            } else {
                // The run got past the target (or finished) before the kill: fine, go on.
                finished = ranToTheEnd(outcome, destination: destination)
                XCTAssertTrue(finished, "run aimed at \(target) failed:\n\(outcome.stderr.suffix(2000))")
                if finished { break }
            }
            if finished { break }
        }
        print("kills landed:\n" + landed.joined(separator: "\n"))
        if !finished {
            assertFinishesAfterTheKills(try ToolProcess.run(common + options + ["--destination", destination]), destination: destination)
        }
        XCTAssertGreaterThanOrEqual(kills, 5, "too few kills landed to prove anything:\n" + landed.joined(separator: "\n"))

        try assertSameStore(destination, path("reference.sqlite"))
        var files = try supportFiles(ofStore: destination)
        if replacing {
            let backup = destination + ".bak"
            XCTAssertEqual(try bytes(backup), oldBytes, "the backup is the old store")
            XCTAssertEqual(try supportFiles(ofStore: backup).mapValues(\.bytes), oldFiles.mapValues(\.bytes), "with its files")
            XCTAssertEqual(files.filter { oldFiles[$0.key] != nil }.mapValues(\.bytes), oldFiles.mapValues(\.bytes),
                           "the old files stay in the destination's folder (only added to)")
            files = files.filter { oldFiles[$0.key] == nil }
        }
        XCTAssertEqual(files.count, Self.photoCount * 3 / 4 - 1, "every file a row names, and no other")
        XCTAssertEqual(files.mapValues(\.bytes), try supportFiles(ofStore: path("reference.sqlite")).mapValues(\.bytes),
                       "the same files, byte for byte")
        XCTAssertEqual(files.mapValues(\.bytes), before.filter { files[$0.key] != nil }.mapValues(\.bytes))
        XCTAssertGreaterThan(seen.count, 0, "no kill left a file to follow")
        for (name, inode) in seen where oldFiles[name] == nil {
            XCTAssertEqual(files[name]?.inode, inode, "\(name) was copied again after a kill")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".rejects.jsonl.zst"), "nothing rejected")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("reference.sqlite.rejects.jsonl.zst")))
        let out = try Database(path: destination, mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT substr(ZDATA, 1, 1) FROM ZPHOTO WHERE Z_PK = \(Self.missingKey)"), [[.blob([0x02])]],
                       "the marker whose file is missing, carried as it is")
        out.close()

        XCTAssertEqual(try supportFiles(ofStore: source).mapValues(\.bytes), before.mapValues(\.bytes), "the source's folder is unchanged")
        XCTAssertEqual(try bytes(source), sourceBytes, "the source store is unchanged")
        if sourceFolder == folder, hardLinksWork() {
            // A file linked, not copied, by any of the runs shares the source file's inode.
            for (name, file) in files {
                XCTAssertEqual(file.inode, before[name]?.inode, "\(name) was copied, not linked from the source's folder")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("etl") }, [],
                       "no work file or folder left")
    }

    /// What the kill left: the stage the checkpoint names, and how many files the
    /// destination's folder holds, to show in the log where the kills fell.
    func whereTheKillLanded(_ destination: String) throws -> String {
        let fm = FileManager.default
        let installed = (try? fm.contentsOfDirectory(atPath: ExternalBinaryStorage.folder(ofStore: destination)))?.count ?? 0
        let linked = (try? fm.contentsOfDirectory(atPath: destination + ".etl-tmp.external"))?.count ?? 0
        let stepLinked = (try? fm.contentsOfDirectory(atPath: destination + ".etl-step1.tmp.external"))?.count ?? 0
        let renamed = fm.fileExists(atPath: destination) ? "store renamed into place" : "store not in place"
        return "\(stepLinked) files in step 1's work folder, \(linked) in step 2's, \(installed) in the destination's folder, \(renamed)"
    }

    /// The inode of each complete file (not a copy being written) in `folder`.
    func inodes(in folder: String) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasSuffix(".etl-partial") {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0 { out[name] = UInt64(info.st_ino) }
        }
        return out
    }

    func fileSystem(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_dev) : nil
    }

    /// Whether this file system gives a second name to a file (else files are copied, and
    /// inodes prove nothing).
    func hardLinksWork() -> Bool {
        let probe = path("probe"), second = path("probe-link")
        defer { unlink(probe); unlink(second) }
        return FileManager.default.createFile(atPath: probe, contents: Data()) && link(probe, second) == 0
    }

    struct SupportFile: Equatable {
        var bytes: Data
        var inode: UInt64
    }

    /// The external storage files of the store at `store`, by file name.
    func supportFiles(ofStore store: String) throws -> [String: SupportFile] {
        let files = ExternalBinaryStorage.folder(ofStore: store)
        var out: [String: SupportFile] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: files) {
            let attributes = try FileManager.default.attributesOfItem(atPath: files + "/" + file)
            out[file] = SupportFile(bytes: try bytes(files + "/" + file),
                                    inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0)
        }
        return out
    }

    /// The file name photo `key` keeps its bytes in (a UUID, as Core Data names them); stores
    /// of another `salt` name other files.
    static func fileName(_ key: Int64, salt: Int) -> String {
        String(format: "%08X-%04X-4000-8000-%012X", key, salt, key &* 2_654_435_761)
    }

    /// Photos.xcdatamodeld (v1: name and data; v2 adds size; v3 adds caption) in the test's folder.
    func writeModel() throws {
        let bundle = folder.appendingPathComponent("Photos.xcdatamodeld")
        let attributes = [
            #"<attribute name="name" optional="YES" attributeType="String"/>"#,
            #"<attribute name="data" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>"#,
            #"<attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>"#,
            #"<attribute name="caption" optional="YES" attributeType="String"/>"#,
        ]
        try ModelBundleFiles.write(bundle, versions: [("v1", 2), ("v2", 3), ("v3", 4)].map { version, count in
            (version, ModelBundleFiles.model("""
                <entity name="Photo" representedClassName="Photo">
                \(attributes.prefix(count).joined(separator: "\n"))
                </entity>
                """))
        }, current: "v3")
    }

    /// A store `name` at v1 in `sourceFolder`, of `photos` photos, with its files.
    func writeStore(named name: String, photos: Int, salt: Int) throws {
        let bundle = folder.appendingPathComponent("Photos.xcdatamodeld")
        let v1 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).versions.first { $0.version == "v1" })
        let layout = CoreDataLayout(model: v1)
        let store = sourceFolder.appendingPathComponent(name).path
        let db = try Database(path: store, mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        let insert = try db.prepare("INSERT INTO \(layout.table(of: "Photo").name) (Z_PK, Z_ENT, Z_OPT, ZNAME, "
                                    + "\(layout.column(ofAttribute: "data", entity: "Photo"))) VALUES (?, 1, 1, ?, ?)")
        let files = ExternalBinaryStorage.folder(ofStore: store)
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try db.transaction {
            for key in Int64(1)...Int64(photos) {
                let photo = (0..<(100 + Int(key) * 7 % 900)).map { UInt8(truncatingIfNeeded: Int(key) &* 31 &+ $0 &* 7) }
                let stored: [UInt8]
                if key % 4 == 0 {
                    stored = [0x01] + photo
                } else {
                    stored = [0x02] + Array(Self.fileName(key, salt: salt).utf8)
                    if key != Self.missingKey { try Data(photo).write(to: URL(fileURLWithPath: files + "/" + Self.fileName(key, salt: salt))) }
                }
                try insert.run([.integer(key), .text("photo \(key)"), .blob(stored)])
            }
        }
        try layout.finish(db)
        db.close()
    }

    /// v1 → v2 inferred; v2 → v3 explicit, passing the data through unchanged.
    func writePipeline() throws -> String {
        try temporary.pipeline("photos.json", """
            { "format": 1, "models": "Photos.xcdatamodeld", "options": { "maxRejects": 1 },
              "source": { "store": "photos.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" },
              "steps": [ { "from": "v2", "to": "v3", "mappings": [ { "source": "Photo", "destination": "Photo",
                "attributes": { "name": "$source.name", "data": "$source.data", "size": "$source.size", "caption": "$source.name" } } ] } ] }
            """)
    }
}
