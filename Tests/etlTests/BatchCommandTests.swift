import XCTest
import Foundation
import ETL
import ETLExpression
import ETLBatch
import ETLTestSupport

/// `etl batch` as a user runs it, on an archive of Core Data books stores of mixed
/// versions (v1, v2, v3) with broken ones among them.
final class BatchCommandTests: XCTestCase {
    static var root: URL { repositoryRoot }
    static var bundle: String { root.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path }

    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-batch") }
    override func tearDown() { temporary = nil }

    override class func tearDown() {
        templateLock.lock()
        if let made = madeTemplate { try? FileManager.default.removeItem(atPath: made.folder) }
        madeTemplate = nil
        templateLock.unlock()
        super.tearDown()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    // MARK: The archive

    /// The broken stores and a part of the reason each must be reported with.
    static let broken: [String: [String]] = [
        "broken/notes.sqlite": ["is not a SQLite database"],
        "broken/truncated.sqlite": ["damaged or truncated"],
        "broken/plain-layout.sqlite": ["is a plain SQLite store", "reads Core Data's layout", "Its tables: Book, Book_users, User."],
        "broken/empty.sqlite": ["empty file (0 bytes)"],
        "broken/other-app.sqlite": ["matches no version of the model", "extra tables: ZNOTE"],
    ]

    struct Archive: Sendable {
        /// Relative path → version, for the stores that migrate.
        var versions: [String: String]
        /// The broken stores in it.
        var broken: [String]
        var all: [String] { (Array(versions.keys) + broken).sorted() }
    }

    /// The pipeline every batch runs: pipelines/books-coredata.json (bundle, target books-v3,
    /// explicit steps) with `destinationVersion` and only the steps up to it.
    static func writePipeline(to path: String, destinationVersion: String = "books-v3") throws {
        let data = try Data(contentsOf: root.appendingPathComponent("pipelines/books-coredata.json"))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["models"] = bundle
        var destination = try XCTUnwrap(json["destination"] as? [String: Any])
        destination["version"] = destinationVersion
        json["destination"] = destination
        let steps = try XCTUnwrap(json["steps"] as? [[String: Any]])
        json["steps"] = destinationVersion == "books-v3" ? steps : steps.filter { $0["to"] as? String == destinationVersion }
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    /// 60 stores: 30 at v1, 15 at v2, 10 at v3 (Core Data layout), and the 5 broken ones.
    /// Made once per test process, copied into each test's folder.
    static func template() throws -> (folder: String, archive: Archive) {
        templateLock.lock()
        defer { templateLock.unlock() }
        if let made = madeTemplate { return made }
        let made = try makeTemplate()
        madeTemplate = made
        return made
    }

    private static let templateLock = NSLock()
    nonisolated(unsafe) private static var madeTemplate: (folder: String, archive: Archive)?

    private static func makeTemplate() throws -> (folder: String, archive: Archive) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("etl-batch-archive-" + UUID().uuidString).path
        let archive = folder + "/archive"
        let fm = FileManager.default
        for sub in ["2019", "2020", "2021/nested", "broken", "work"] {
            try fm.createDirectory(atPath: archive + "/" + sub, withIntermediateDirectories: true)
        }
        try fm.createDirectory(atPath: folder + "/work", withIntermediateDirectories: true)
        let full = folder + "/work/to-v3.json", toV2 = folder + "/work/to-v2.json"
        try writePipeline(to: full)
        try writePipeline(to: toV2, destinationVersion: "books-v2")
        try? fm.removeItem(atPath: archive + "/work")
        var versions: [String: String] = [:]
        var random = SplitMix64(seed: 2024)
        for i in 0..<55 {
            let rows = 20 + random.below(40)
            let (relative, version) = i < 30 ? (String(format: "2019/user-%02d.sqlite", i), "books-v1")
                : i < 45 ? (String(format: "2020/user-%02d.sqlite", i), "books-v2")
                : (String(format: "2021/nested/user-%02d.sqlite", i), "books-v3")
            let target = archive + "/" + relative
            if version == "books-v1" {
                try BooksSample.write(rows: rows, seed: UInt64(i + 1), to: target, layout: .coredata)
            } else {
                // v2 and v3 stores: v1 stores migrated by the bundle's own steps.
                let v1 = folder + "/work/v1-\(i).sqlite"
                try BooksSample.write(rows: rows, seed: UInt64(i + 1), to: v1, layout: .coredata)
                var migration = Migration(pipeline: version == "books-v2" ? toV2 : full)
                migration.source = v1
                migration.destination = target
                migration.workers = 1
                _ = try migration.run()
            }
            versions[relative] = version
        }
        // The broken ones.
        try Data("These are my notes, not a store.\n".utf8).write(to: URL(fileURLWithPath: archive + "/broken/notes.sqlite"))
        _ = fm.createFile(atPath: archive + "/broken/empty.sqlite", contents: Data())
        let whole = folder + "/work/whole.sqlite"
        try BooksSample.write(rows: 400, seed: 99, to: whole, layout: .coredata)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: archive + "/broken/truncated.sqlite"))
        try BooksSample.write(rows: 30, seed: 98, to: archive + "/broken/plain-layout.sqlite", layout: .plain)
        let other = try Database(path: archive + "/broken/other-app.sqlite", mode: .create)
        try other.execute("""
            CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTEXT VARCHAR);
            INSERT INTO ZNOTE VALUES (1, 1, 1, 'remember the milk');
            """)
        other.close()
        try fm.removeItem(atPath: folder + "/work")
        return (folder, Archive(versions: versions, broken: broken.keys.sorted()))
    }

    /// Copies the archive (only the stores `include` accepts) into this test's folder, with
    /// the pipeline beside it.
    func makeArchive(include: (String) -> Bool = { _ in true }) throws -> Archive {
        let (source, template) = try Self.template()
        var archive = template
        archive.versions = archive.versions.filter { include($0.key) }
        archive.broken = archive.broken.filter(include)
        for relative in template.all where include(relative) {
            let target = path("archive/" + relative)
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source + "/archive/" + relative, toPath: target)
        }
        try Self.writePipeline(to: path("upgrade.json"))
        return archive
    }

    // MARK: Running etl

    typealias Outcome = ToolRun

    /// Runs `etl` in the test's folder; with `killAfter`, SIGKILLs it once that many stores
    /// have finished (read from `--progress json`) and a pause of `pause` microseconds passed.
    func etl(_ arguments: [String], killAfter: Int? = nil, pause: UInt32 = 0) throws -> Outcome {
        try Self.etl(arguments, in: folder, killAfter: killAfter, pause: pause)
    }

    static func etl(_ arguments: [String], in folder: URL, killAfter: Int? = nil, pause: UInt32 = 0) throws -> Outcome {
        guard let killAfter else { return try ToolProcess.run(arguments, in: folder) }
        var finished = 0
        return try ToolProcess.run(arguments, in: folder) { line in
            if line.contains("\"kind\":\"store-finished\"") { finished += 1 }
            guard finished >= killAfter else { return false }
            usleep(pause)
            return true
        }
    }

    // MARK: Checks

    /// Every table but Z_METADATA (whose store UUID is new in every run), each ordered by
    /// all its columns.
    func dump(_ path: String) throws -> [String] {
        try storeDump(path, excluding: ["Z_METADATA"])
    }

    func assertSameStore(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try ETLTestSupport.assertSameStore(a, b, excluding: ["Z_METADATA"], file: file, line: line)
    }

    /// Rows per entity of a result, and the version it is at.
    func inspect(_ path: String) throws -> (version: String?, rows: [String: Int]) {
        let inspection = try StoreInspection.inspect(path: path, bundle: Self.bundle)
        var rows: [String: Int] = [:]
        for entity in inspection.entities where entity.rows > 0 { rows[entity.entity, default: 0] += entity.rows }
        return ((try? inspection.version?.get())?.version, rows)
    }

    /// `name{labels} value` lines of a Prometheus text file.
    func metrics(_ path: String) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    func contents(_ relative: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(relative))) }

    struct FileStamp: Equatable {
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    func stamp(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec, inode: UInt64(info.st_ino))
    }

    /// Files below `folder`, relative, sorted.
    func files(below folder: String) -> [String] {
        let base = path(folder)
        let enumerator = FileManager.default.enumerator(atPath: base)
        var found: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + next, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(next)
            }
        }
        return found.sorted()
    }

    // MARK: Tests

    /// One run over 60 stores of mixed versions, 5 of them broken: 45 migrated, 10 up to
    /// date, 5 failed with their reasons, exit code 3; report and metrics agree with the disk.
    func testMixedArchiveMigratesEveryGoodStoreAndReportsTheBrokenOnes() throws {
        let archive = try makeArchive()
        XCTAssertEqual(archive.all.count, 60)
        let sources = try Dictionary(uniqueKeysWithValues: archive.all.map { ($0, try contents("archive/" + $0)) })

        let run = try etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--out", "out", "--jobs", "2",
                           "--report", "report.json", "--metrics-file", "metrics/etl.prom"])
        XCTAssertEqual(run.status, 3, run.stderr + run.stdout)
        XCTAssertTrue(run.stderr.contains("5 of 60 stores failed"), run.stderr)

        // The sources are never modified.
        for (relative, data) in sources {
            XCTAssertEqual(try contents("archive/" + relative), data, "\(relative) changed")
        }

        let report = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(report.stores.map(\.path), archive.all)
        XCTAssertEqual(report.count(.done), 45)
        XCTAssertEqual(report.count(.skipped), 10)
        XCTAssertEqual(report.count(.failed), 5)
        var rowsOnDisk = 0
        for entry in report.stores {
            let output = path("out/" + entry.path)
            if let reasons = Self.broken[entry.path] {
                XCTAssertEqual(entry.status, .failed, entry.path)
                for reason in reasons {
                    XCTAssertTrue(entry.error?.contains(reason) == true, "\(entry.path): \(entry.error ?? "no error")\n  lacks: \(reason)")
                    XCTAssertTrue(run.stdout.contains(reason), "the summary lacks \(entry.path)'s reason \(reason)")
                }
                XCTAssertFalse(FileManager.default.fileExists(atPath: output), entry.path)
                continue
            }
            let version = try XCTUnwrap(archive.versions[entry.path])
            XCTAssertEqual(entry.fromVersion, version, entry.path)
            XCTAssertEqual(entry.toVersion, "books-v3", entry.path)
            XCTAssertNil(entry.error, entry.path)
            if version == "books-v3" {
                XCTAssertEqual(entry.status, .skipped, entry.path)
                XCTAssertFalse(FileManager.default.fileExists(atPath: output), "an up-to-date store is not written: \(entry.path)")
                continue
            }
            XCTAssertEqual(entry.status, .done, entry.path)
            XCTAssertEqual(entry.output, output)
            // The result is a v3 store whose rows per entity are the report's.
            let found = try inspect(output)
            XCTAssertEqual(found.version, "books-v3", entry.path)
            XCTAssertEqual(found.rows, entry.rows.filter { $0.value > 0 }, entry.path)
            XCTAssertEqual(Set(entry.rows.keys), ["User", "Book", "Author", "File"], entry.path)
            XCTAssertGreaterThan(entry.seconds, 0)
            rowsOnDisk += found.rows.values.reduce(0, +)
        }
        XCTAssertEqual(report.rows, rowsOnDisk)
        // Nothing else in the output folder: no work files, no stray results.
        let expected = report.stores.filter { $0.status == .done }.map(\.path) + [".etl-batch-manifest.jsonl.zst"]
        XCTAssertEqual(files(below: "out"), expected.sorted())

        // Each result is the one `etl run` makes of its store alone (a v1 and a v2 store).
        for relative in ["2019/user-03.sqlite", "2020/user-40.sqlite"] {
            var migration = Migration(pipeline: path("upgrade.json"))
            migration.source = path("archive/" + relative)
            migration.destination = path("alone-" + (relative as NSString).lastPathComponent)
            _ = try migration.run()
            try assertSameStore(path("out/" + relative), migration.destination!)
        }

        // The metrics say the same.
        let values = try metrics(path("metrics/etl.prom"))
        let labels = #"pipeline="upgrade.json",shard="all""#
        XCTAssertEqual(values["etl_batch_stores{\(labels),status=\"done\"}"], 45)
        XCTAssertEqual(values["etl_batch_stores{\(labels),status=\"skipped\"}"], 10)
        XCTAssertEqual(values["etl_batch_stores{\(labels),status=\"failed\"}"], 5)
        XCTAssertEqual(values["etl_batch_stores{\(labels),status=\"interrupted\"}"], 0)
        XCTAssertEqual(values["etl_batch_rows_migrated{\(labels)}"], Double(rowsOnDisk))
        XCTAssertGreaterThan(values["etl_batch_duration_seconds{\(labels)}"] ?? 0, 0)
        XCTAssertNil(values["etl_batch_last_success_timestamp_seconds{\(labels)}"], "a run with failures is no success")
        XCTAssertEqual(files(below: "metrics"), ["etl.prom"])

        // The summary: counts, the 5 slowest stores, the failures.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let rule = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("──") }, run.stdout)
        XCTAssertEqual(lines[rule - 1].split(separator: " ").prefix(7), ["stores", "done", "skipped", "failed", "interrupted", "pending", "rows"])
        XCTAssertEqual(lines[rule + 1].split(separator: " ").prefix(7).map(String.init), ["60", "45", "10", "5", "0", "0", "\(rowsOnDisk)"])
        let slowest = try XCTUnwrap(lines.firstIndex(of: "slowest stores:"))
        XCTAssertEqual(lines[(slowest + 1)...].prefix { $0.hasPrefix("  ") }.count, 5, run.stdout)
        XCTAssertTrue(run.stdout.contains("failed stores (5):"), run.stdout)

        // Run again: every store has its outcome; nothing is touched, the same failures.
        let stamps = report.stores.compactMap { $0.output }.map { stamp($0) }
        let again = try etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--out", "out", "--report", "report.json"])
        XCTAssertEqual(again.status, 3, again.stderr)
        XCTAssertEqual(report.stores.compactMap { $0.output }.map { stamp($0) }, stamps)
        XCTAssertTrue(again.stdout.contains("60 of these outcomes were recorded by an earlier run"), again.stdout)
        let second = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(second.stores.map(\.status), report.stores.map(\.status))
    }

    /// SIGKILL at two random moments, then a run to the end: no finished store is done
    /// again, and every result equals an uninterrupted batch's.
    func testKilledBatchResumesWithoutRedoingFinishedStores() throws {
        // The v1 and v2 stores, and two broken ones.
        let archive = try makeArchive { !$0.hasPrefix("2021/") && !$0.contains("truncated") && !$0.contains("other-app") }
        let stores = archive.all
        XCTAssertEqual(stores.count, 48)
        // A fixed seed, named in every failure; ETL_TEST_SEED tries (or replays) another.
        let seed = TestSeed(fixedFor: "testKilledBatchResumesWithoutRedoingFinishedStores")
        var random = SplitMix64(seed: seed.value)
        let arguments = ["batch", "upgrade.json", "--stores", "archive", "--jobs", "2", "--chunk-size", "7", "--progress", "json"]

        let reference = try etl(arguments + ["--out", "reference"])
        XCTAssertEqual(reference.status, 3, reference.stderr)

        var finishedBefore: [String: FileStamp] = [:]
        var killedAt: [Int] = []
        var midway = 0
        for round in 0..<2 {
            // A random number of stores finished (more in the second round), then a random pause.
            let after = 2 + random.below(12) + round * 14
            let pause = UInt32(random.below(60_000))
            let killed = try etl(arguments + ["--out", "out"], killAfter: after, pause: pause)
            XCTAssertTrue(killed.killed, "seed \(seed): the batch ended before the kill (after \(after) stores): \(killed.stderr.suffix(500))")
            killedAt.append(after)
            // Stores cut in the middle keep their checkpoints beside their outputs, for the next run.
            midway = files(below: "out").filter {
                $0.hasSuffix(".etl-checkpoint") && !FileManager.default.fileExists(atPath: path("out/" + $0.dropLast(".etl-checkpoint".count)))
            }.count
            // Every result in place now was finished: it must never be written again.
            for relative in stores {
                let output = path("out/" + relative)
                if let stamp = stamp(output) {
                    if let earlier = finishedBefore[relative] { XCTAssertEqual(stamp, earlier, "seed \(seed): \(relative) was written again") }
                    finishedBefore[relative] = stamp
                }
            }
        }
        XCTAssertFalse(finishedBefore.isEmpty, "seed \(seed): nothing finished before the kills \(killedAt)")

        let resumed = try etl(arguments + ["--out", "out", "--report", "report.json"])
        XCTAssertEqual(resumed.status, 3, "seed \(seed): " + resumed.stderr.suffix(2000))
        if midway > 0 {
            // Stores killed midway were resumed from their checkpoints, not started over.
            XCTAssertTrue(resumed.stderr.contains("\"store-resumed\""), "seed \(seed): \(midway) stores were cut midway")
        }
        for (relative, earlier) in finishedBefore {
            XCTAssertEqual(stamp(path("out/" + relative)), earlier, "seed \(seed), kills after \(killedAt) stores: \(relative) was redone")
        }
        let report = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(report.count(.done), 45, "seed \(seed)")
        XCTAssertEqual(report.count(.failed), 3, "seed \(seed)")
        // Each store has exactly one outcome in the manifest: none was done twice.
        let manifest = try BatchManifest.read(path: path("out/.etl-batch-manifest.jsonl.zst"))
        var outcomes: [String: Int] = [:]
        for entry in manifest.entries where entry.status == .done || entry.status == .failed || entry.status == .skipped {
            outcomes[entry.path, default: 0] += 1
        }
        XCTAssertEqual(outcomes.filter { $0.value != 1 }, [:], "seed \(seed)")
        XCTAssertEqual(outcomes.count, 48)

        // The results equal the uninterrupted batch's, store by store; no work file is left.
        for relative in archive.versions.keys.sorted() {
            try assertSameStore(path("out/" + relative), path("reference/" + relative))
        }
        XCTAssertEqual(files(below: "out").filter { $0.contains(".etl-") && !$0.hasPrefix(".etl-batch-manifest") }, [], "seed \(seed)")
    }

    /// A batch of two small stores into `out`, then the `started` entry of `out/s1.sqlite`
    /// appended to its manifest last, as a kill after that store's install leaves it: the
    /// batch's arguments, and that store's result.
    func batchKilledAfterInstallingStoreOne() throws -> (arguments: [String], output: String) {
        try FileManager.default.createDirectory(atPath: path("archive"), withIntermediateDirectories: true)
        for seed in 1...2 { try BooksSample.write(rows: 20, seed: UInt64(seed), to: path("archive/s\(seed).sqlite")) }
        let pipeline = Self.root.appendingPathComponent("pipelines/books.json").path
        let arguments = ["batch", pipeline, "--stores", "archive", "--out", "out", "--report", "report.json"]
        let first = try etl(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        let manifestPath = path("out/.etl-batch-manifest.jsonl.zst")
        let contents = try BatchManifest.read(path: manifestPath)
        var started = try XCTUnwrap(contents.latest.values.first { $0.path.hasSuffix("s1.sqlite") })
        started.status = .started
        started.outputExisted = false
        try BatchManifest(path: manifestPath, header: try XCTUnwrap(contents.header), restart: false).append(started)
        return (arguments, path("out/s1.sqlite"))
    }

    /// Killed after a store's result was installed and its checkpoint removed, but before
    /// its run lock was let go and its outcome written: the rerun counts the store done,
    /// leaves its result alone, and removes the lock file the kill left behind.
    func testAStoreFinishedJustBeforeAKillLeavesNoLockFileBehind() throws {
        // What such a kill leaves: the store's `started` entry last, and the lock file.
        let (arguments, output) = try batchKilledAfterInstallingStoreOne()
        let lockFile = RunLock.path(forDestination: output)
        XCTAssertTrue(FileManager.default.createFile(atPath: lockFile, contents: Data("12345\n".utf8)))
        let before = stamp(output)

        let rerun = try etl(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let report = try BatchReport.read(path: path("report.json"))
        let result = try XCTUnwrap(report.stores.first { $0.path.hasSuffix("s1.sqlite") })
        XCTAssertEqual(result.status, .done)
        XCTAssertTrue(result.notes.contains { $0.hasPrefix("finished just before the batch was stopped") }, "\(result.notes)")
        XCTAssertEqual(stamp(output), before, "the result was not written again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: lockFile), "the stale lock file was removed")
        XCTAssertEqual(files(below: "out").filter { $0.contains(".etl-") && !$0.hasPrefix(".etl-batch-manifest") }, [])
    }

    /// A small store's run under `etl batch --out` writes no checkpoint before it renames its
    /// result into place (`RunOptions.installRecordedByCaller`): killed after the rename, before
    /// it removed its work files, it leaves those and no checkpoint. The rerun counts the store
    /// done from its result, and removes them.
    func testAStoreKilledAfterItsRenameBeforeItsCleanupIsDoneAndItsWorkFilesGo() throws {
        // What such a kill leaves: the store's `started` entry last, its work database and journals.
        let (arguments, output) = try batchKilledAfterInstallingStoreOne()
        for leftover in [".etl-work", ".etl-work-journal", ".etl-tmp-journal", ".rejects.jsonl.zst.step1"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: output + leftover, contents: Data()))
        }
        let before = stamp(output)

        let rerun = try etl(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let result = try XCTUnwrap(try BatchReport.read(path: path("report.json")).stores.first { $0.path.hasSuffix("s1.sqlite") })
        XCTAssertEqual(result.status, .done)
        XCTAssertTrue(result.notes.contains { $0.hasPrefix("finished just before the batch was stopped") }, "\(result.notes)")
        XCTAssertEqual(stamp(output), before, "the result was not written again")
        XCTAssertEqual(files(below: "out").filter { $0.contains(".etl-") || $0.contains(".step1") }
                           .filter { !$0.hasPrefix(".etl-batch-manifest") }, [])
    }

    /// Four shards at once over one archive: each store migrated by exactly one of them.
    func testFourConcurrentShardsMigrateEveryStoreExactlyOnce() throws {
        let archive = try makeArchive()
        let stores = archive.all
        let outcomes = LockedOutcomes()
        let group = DispatchGroup()
        let folder = self.folder!
        for index in 0..<4 {
            group.enter()
            let thread = Thread {
                do {
                    let run = try Self.etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--out", "out", "--shard", "\(index)/4",
                                            "--jobs", "1", "--report", "reports/report-{shard}.json", "--progress", "none"], in: folder)
                    outcomes.set(index, run)
                } catch {
                    outcomes.set(index, Outcome(status: -1, stdout: "", stderr: "\(error)", killed: false))
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()

        var owner: [String: Int] = [:]
        var outputs: [String: Int] = [:]
        for index in 0..<4 {
            let run = try XCTUnwrap(outcomes.get(index))
            let report = try BatchReport.read(path: path("reports/report-shard-\(index)-of-4.json"))
            XCTAssertEqual(report.shard, "\(index)/4")
            XCTAssertEqual(run.status, report.count(.failed) > 0 ? 3 : 0, run.stderr)
            for entry in report.stores {
                XCTAssertNil(owner[entry.path], "\(entry.path) is in shards \(owner[entry.path]!) and \(index)")
                owner[entry.path] = index
                XCTAssertEqual(BatchShard.shard(of: entry.path, count: 4), index, entry.path)
                if let output = entry.output {
                    XCTAssertNil(outputs[output], "shards \(outputs[output] ?? -1) and \(index) both wrote \(output)")
                    outputs[output] = index
                    XCTAssertTrue(FileManager.default.fileExists(atPath: output), output)
                }
            }
            // Its own manifest: every store of the shard started exactly once, by this shard only.
            let manifest = try BatchManifest.read(path: path("out/.etl-batch-manifest.shard-\(index)-of-4.jsonl.zst"))
            XCTAssertEqual(manifest.header?.shard, "\(index)/4")
            let started = manifest.entries.filter { $0.status == .started }.map(\.path)
            XCTAssertEqual(started.count, Set(started).count, "a store started twice in shard \(index)")
            XCTAssertEqual(Set(started), Set(report.stores.map(\.path)))
        }
        // The union of the reports is the archive, and every good store is migrated or up to date.
        XCTAssertEqual(owner.keys.sorted(), stores)
        XCTAssertEqual(outputs.count, 45)
        XCTAssertEqual(Set(owner.values).count, 4, "every shard got stores")
        XCTAssertEqual(files(below: "out").filter { $0.hasSuffix(".sqlite") }.count, 45)
    }

    final class LockedOutcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: Outcome] = [:]
        func set(_ index: Int, _ outcome: Outcome) { lock.lock(); values[index] = outcome; lock.unlock() }
        func get(_ index: Int) -> Outcome? { lock.lock(); defer { lock.unlock() }; return values[index] }
    }

    /// `--in-place --backup-dir`: each upgraded store replaced by a new file, its original
    /// byte for byte in the backup folder; up-to-date and failed stores untouched.
    func testInPlaceReplacesEachStoreAndKeepsItsOriginal() throws {
        let chosen: Set<String> = ["2019/user-00.sqlite", "2019/user-01.sqlite", "2019/user-02.sqlite", "2020/user-30.sqlite",
                                   "2020/user-31.sqlite", "2021/nested/user-45.sqlite", "broken/plain-layout.sqlite", "broken/notes.sqlite"]
        let archive = try makeArchive { chosen.contains($0) }
        let before = try Dictionary(uniqueKeysWithValues: archive.all.map { ($0, try contents("archive/" + $0)) })
        let inodes = Dictionary(uniqueKeysWithValues: archive.all.map { ($0, stamp(path("archive/" + $0))!) })
        // What each upgraded store must become: its own `etl run`.
        for (relative, version) in archive.versions where version != "books-v3" {
            var migration = Migration(pipeline: path("upgrade.json"))
            migration.source = path("archive/" + relative)
            migration.destination = path("expected/" + relative.replacingOccurrences(of: "/", with: "-"))
            try FileManager.default.createDirectory(atPath: path("expected"), withIntermediateDirectories: true)
            _ = try migration.run()
        }

        let run = try etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--in-place", "--backup-dir", "backups",
                           "--report", "report.json"])
        XCTAssertEqual(run.status, 3, run.stderr)
        let report = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(report.count(.done), 5)
        XCTAssertEqual(report.count(.skipped), 1)
        XCTAssertEqual(report.count(.failed), 2)
        for entry in report.stores {
            let store = path("archive/" + entry.path)
            let backup = path("backups/" + entry.path)
            switch archive.versions[entry.path] {
            case "books-v1"?, "books-v2"?:
                XCTAssertEqual(entry.status, .done, entry.path)
                XCTAssertEqual(entry.backup, backup)
                // Replaced by a new file (an atomic rename), holding exactly what `etl run` makes.
                XCTAssertNotEqual(stamp(store)?.inode, inodes[entry.path]?.inode, entry.path)
                XCTAssertEqual(try inspect(store).version, "books-v3")
                try assertSameStore(store, path("expected/" + entry.path.replacingOccurrences(of: "/", with: "-")))
                // The original, byte for byte, at the same relative path in the backup folder.
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: backup)), before[entry.path], entry.path)
            case "books-v3"?:
                XCTAssertEqual(entry.status, .skipped, entry.path)
                XCTAssertEqual(try contents("archive/" + entry.path), before[entry.path])
                XCTAssertEqual(stamp(store), inodes[entry.path])
                XCTAssertFalse(FileManager.default.fileExists(atPath: backup))
            default:
                // A failed store is left exactly as it was.
                XCTAssertEqual(entry.status, .failed, entry.path)
                XCTAssertEqual(try contents("archive/" + entry.path), before[entry.path], entry.path)
                XCTAssertEqual(stamp(store), inodes[entry.path], entry.path)
                XCTAssertFalse(FileManager.default.fileExists(atPath: backup))
            }
        }
        // No .bak, link, checkpoint or work file is left beside the stores.
        XCTAssertEqual(files(below: "archive"), archive.all)
        XCTAssertEqual(files(below: "backups"), archive.versions.filter { $0.value != "books-v3" }.keys.sorted())

        // Again: nothing more happens.
        let stamps = archive.all.map { stamp(path("archive/" + $0)) }
        let again = try etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--in-place", "--backup-dir", "backups"])
        XCTAssertEqual(again.status, 3, again.stderr)
        XCTAssertEqual(archive.all.map { stamp(path("archive/" + $0)) }, stamps)

        // Without --backup-dir the original stays beside the store as STORE.bak.
        try FileManager.default.createDirectory(atPath: path("single"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("backups/2019/user-00.sqlite"), toPath: path("single/a.sqlite"))
        let original = try contents("single/a.sqlite")
        let single = try etl(["batch", "upgrade.json", "--stores", "single", "--in-place", "--manifest", "single-manifest.jsonl.zst"])
        XCTAssertEqual(single.status, 0, single.stderr)
        XCTAssertEqual(files(below: "single"), ["a.sqlite", "a.sqlite.bak"])
        XCTAssertEqual(try contents("single/a.sqlite.bak"), original)
        XCTAssertEqual(try inspect(path("single/a.sqlite")).version, "books-v3")
    }

    /// The watchdog: a store whose run outlives --store-timeout is stopped at its next chunk
    /// and reported failed; its work is kept, so a later run with --retry-failed resumes it.
    func testTheWatchdogStopsAStoreThatRunsTooLong() throws {
        try FileManager.default.createDirectory(atPath: path("slow"), withIntermediateDirectories: true)
        try Self.writePipeline(to: path("upgrade.json"))
        // About 2.7 s of work here (a debug build), stopped at 0.8 s: after its first checkpoint
        // even on a loaded machine (at 30,000 rows and 0.1 s, a busy machine stopped the store
        // before it, with no work to keep), and long before its end.
        try BooksSample.write(rows: 300_000, seed: 5, to: path("slow/big.sqlite"), layout: .coredata)
        let run = try etl(["batch", "upgrade.json", "--stores", "slow", "--out", "out", "--chunk-size", "50",
                           "--store-timeout", "0.8", "--report", "report.json"])
        XCTAssertEqual(run.status, 3, run.stderr)
        let report = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(report.count(.failed), 1)
        XCTAssertTrue(report.stores[0].error?.contains("(--store-timeout) and was stopped") == true, "\(report.stores[0].error ?? "")")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out/big.sqlite")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out/big.sqlite.etl-checkpoint")), "its work is kept")

        let again = try etl(["batch", "upgrade.json", "--stores", "slow", "--out", "out", "--chunk-size", "50", "--retry-failed"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out/big.sqlite")))
    }

    func testUsageErrorsAndHelp() throws {
        try Self.writePipeline(to: path("upgrade.json"))
        try FileManager.default.createDirectory(atPath: path("archive"), withIntermediateDirectories: true)
        try BooksSample.write(rows: 20, seed: 1, to: path("archive/a.sqlite"), layout: .coredata)
        let help = try etl(["batch", "--help"])
        XCTAssertEqual(help.status, 0)
        for part in ["--jobs", "--in-place", "--backup-dir", "--shard", "ONE worker", "3 some stores failed", "docs/batch.md"] {
            XCTAssertTrue(help.stdout.contains(part), "batch --help lacks '\(part)'")
        }
        XCTAssertTrue(try etl(["--help"]).stdout.contains("3         etl batch: some stores failed"))
        let cases: [([String], String)] = [
            (["--stores", "archive"], "--out DIR, or --in-place"),
            (["--stores", "archive", "--out", "o", "--in-place"], "exclude each other"),
            (["--stores", "archive", "--out", "o", "--backup-dir", "b"], "--backup-dir goes with --in-place"),
            (["--stores", "archive", "--out", "o", "--shard", "4/4"], "not between 0 and 3"),
            (["--stores", "archive", "--out", "o", "--shard", "auto"], "neither is set"),
            (["--stores", "archive", "--out", "o", "--shard", "1/2", "--shard-count", "2"], "--shard-count goes with --shard auto"),
            (["--stores", "nowhere/*.sqlite", "--out", "o"], "does not exist"),
            (["--stores", "archive/*.db", "--out", "o"], "names no store"),
        ]
        for (arguments, message) in cases {
            let run = try etl(["batch", "upgrade.json"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)\n  lacks: \(message)")
        }
        // A bad pipeline is refused before any store is touched.
        try Data("{ \"format\": 1, \"sorce\": {} }".utf8).write(to: URL(fileURLWithPath: path("bad.json")))
        let bad = try etl(["batch", "bad.json", "--stores", "archive", "--out", "o"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("o")))
    }
}
