import Foundation
import XCTest
import ETL
import ETLExpression
import ETLTestSupport
@testable import ETLBatch

/// A recorded outcome stays true only while what made it is unchanged: its inputs (the
/// pipeline, the bundle's versions), its source and its result. `--dry-run` agrees with the
/// run each time. One batch per `--out` at a time.
final class BatchManifestTruthTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder(prefix: "etl-batch-truth") }
    override func tearDown() { folder = nil }

    var bundle: String { folder.path("models/Books.xcdatamodeld") }

    /// Three Core Data books v1 stores, the repository's Books bundle copied, and the
    /// books-coredata pipeline over it targeting the bundle's current version.
    func makeBatch(stores count: Int = 3) throws -> BatchOptions {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder.path("models"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: repositoryRoot.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path, toPath: bundle)
        try fm.createDirectory(atPath: folder.path("archive"), withIntermediateDirectories: true)
        for i in 0..<count {
            _ = try BooksSample.write(rows: 30 + i, seed: UInt64(i + 1), to: folder.path("archive/user-\(i).sqlite"), layout: .coredata)
        }
        try writePipeline(version: nil)
        let stores = try BatchStoreList.find(folder.path("archive")).stores
        let output = BatchOptions.Output.directory(folder.path("out"))
        return BatchOptions(pipeline: folder.path("upgrade.json"), stores: stores, output: output,
                            manifest: BatchManifest.path(given: nil, output: output, pipeline: folder.path("upgrade.json"), shard: .all), jobs: 2)
    }

    /// pipelines/books-coredata.json over the copied bundle; `version` nil: the bundle's current one.
    func writePipeline(version: String?) throws {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("pipelines/books-coredata.json"))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["models"] = bundle
        var destination = try XCTUnwrap(json["destination"] as? [String: Any])
        destination["version"] = version
        json["destination"] = destination
        if version == "books-v2" {
            json["steps"] = try XCTUnwrap(json["steps"] as? [[String: Any]]).filter { $0["to"] as? String == "books-v2" }
        }
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: folder.path("upgrade.json")))
    }

    /// Adds books-v4 (v3 and a new optional attribute) to the bundle and makes it current.
    func addVersion4() throws {
        let v3 = try String(contentsOfFile: bundle + "/books-v3.xcdatamodel/contents", encoding: .utf8)
        let v4 = v3.replacingOccurrences(of: "userDefinedModelVersionIdentifier=\"books-v3\"", with: "userDefinedModelVersionIdentifier=\"books-v4\"")
            .replacingOccurrences(of: "<attribute name=\"title\" attributeType=\"String\"/>",
                                  with: "<attribute name=\"title\" attributeType=\"String\"/>\n        <attribute name=\"subtitle\" optional=\"YES\" attributeType=\"String\"/>")
        XCTAssertNotEqual(v3, v4)
        try FileManager.default.createDirectory(atPath: bundle + "/books-v4.xcdatamodel", withIntermediateDirectories: true)
        try v4.write(toFile: bundle + "/books-v4.xcdatamodel/contents", atomically: true, encoding: .utf8)
        let current = try String(contentsOfFile: bundle + "/.xccurrentversion", encoding: .utf8)
        try current.replacingOccurrences(of: "books-v3.xcdatamodel", with: "books-v4.xcdatamodel")
            .write(toFile: bundle + "/.xccurrentversion", atomically: true, encoding: .utf8)
    }

    /// Runs the dry run, then the batch; checks that they agree store by store, and
    /// returns the run's stores migrated by it (the others kept their recorded outcome).
    @discardableResult
    func runAgreeing(_ options: BatchOptions, file: StaticString = #filePath, line: UInt = #line) throws -> (report: BatchReport, ran: Set<String>, dry: [BatchStorePlan]) {
        let dry = try Batch(options: options).dryRun()
        let ran = RanStores()
        let report = try Batch(options: options).run { event in
            if event.kind == .storeStarted, let store = event.store { ran.add(store) }
        }
        for plan in dry {
            let result = try XCTUnwrap(report.stores.first { $0.path == plan.store }, file: file, line: line)
            switch plan.decision {
            case .keep, .stale:
                XCTAssertFalse(ran.stores.contains(plan.store), "dry run said \(plan.decision), the run migrated \(plan.store)", file: file, line: line)
            case .migrate:
                XCTAssertTrue(ran.stores.contains(plan.store), "dry run said migrate, the run did not: \(plan.store)", file: file, line: line)
                XCTAssertEqual(result.status, .done, "\(plan.store): \(result.error ?? "")", file: file, line: line)
                XCTAssertEqual(result.toVersion, plan.toVersion, file: file, line: line)
            case .skip:
                XCTAssertEqual(result.status, .skipped, file: file, line: line)
            case .refuse:
                XCTAssertEqual(result.status, .failed, file: file, line: line)
            }
        }
        return (report, ran.stores, dry)
    }

    final class RanStores: @unchecked Sendable {
        private let lock = NSLock()
        private var set: Set<String> = []
        func add(_ store: String) { lock.withLock { _ = set.insert(store) } }
        var stores: Set<String> { lock.withLock { set } }
    }

    func testNewBundleVersionEditedPipelineAndUnrelatedFiles() throws {
        let options = try makeBatch()
        let all = Set(options.stores.map(\.relativePath))
        var run = try runAgreeing(options)
        XCTAssertEqual(run.ran, all)
        XCTAssertEqual(Set(run.report.stores.map(\.toVersion)), ["books-v3"])

        // Nothing changed: nothing redone, and the dry run says so.
        run = try runAgreeing(options)
        XCTAssertEqual(run.ran, [])
        XCTAssertEqual(Set(run.dry.map(\.decision)), [.keep])

        // An unrelated file in the bundle's folder, and one inside the bundle: nothing redone.
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder.path("models/README.txt")))
        try Data("x".utf8).write(to: URL(fileURLWithPath: bundle + "/.DS_Store"))
        run = try runAgreeing(options)
        XCTAssertEqual(run.ran, [], "\(run.dry)")

        // A new current version: every store migrated to it, saying why.
        try addVersion4()
        run = try runAgreeing(options)
        XCTAssertEqual(run.ran, all)
        XCTAssertEqual(Set(run.report.stores.map(\.toVersion)), ["books-v4"])
        for plan in run.dry { XCTAssertTrue(plan.reason?.contains(".xccurrentversion changed") ?? false, "\(plan)") }
        for store in run.report.stores {
            let note = try XCTUnwrap(store.notes.first { $0.hasPrefix("migrated again: ") }, "\(store.notes)")
            XCTAssertTrue(note.contains("books-v4.xcdatamodel/contents was added"), note)
            let columns = try Database(path: try XCTUnwrap(store.output), mode: .readOnly).rows("SELECT name FROM pragma_table_info('ZBOOK')")
            XCTAssertTrue(columns.contains { $0.first == .text("ZSUBTITLE") }, "the result is not at books-v4: \(columns)")
        }
        XCTAssertEqual(try runAgreeing(options).ran, [])

        // The pipeline edited (target books-v2): redone.
        try writePipeline(version: "books-v2")
        run = try runAgreeing(options)
        XCTAssertEqual(run.ran, all)
        XCTAssertEqual(Set(run.report.stores.map(\.toVersion)), ["books-v2"])
        XCTAssertTrue(run.report.stores.allSatisfy { $0.notes.contains { $0.contains("the pipeline upgrade.json was edited") } })
        XCTAssertEqual(try runAgreeing(options).ran, [])
    }

    func testReportStaleLeavesStoresAsTheyAre() throws {
        var options = try makeBatch(stores: 2)
        try runAgreeing(options)
        let before = try options.stores.map { try Data(contentsOf: URL(fileURLWithPath: folder.path("out/" + $0.relativePath))) }
        try addVersion4()
        options.reportStale = true
        let run = try runAgreeing(options)
        XCTAssertEqual(run.ran, [])
        XCTAssertEqual(Set(run.dry.map(\.decision)), [.stale])
        XCTAssertTrue(run.report.stores.allSatisfy { ($0.stale ?? []).contains { $0.contains(".xccurrentversion changed") } })
        XCTAssertEqual(try options.stores.map { try Data(contentsOf: URL(fileURLWithPath: folder.path("out/" + $0.relativePath))) }, before)
        // Without the flag, they are migrated.
        options.reportStale = false
        XCTAssertEqual(try runAgreeing(options).ran.count, 2)
    }

    func testADeletedOrChangedResultIsMigratedAgain() throws {
        let options = try makeBatch()
        try runAgreeing(options)
        let deleted = folder.path("out/user-0.sqlite")
        try FileManager.default.removeItem(atPath: deleted)
        var run = try runAgreeing(options)
        XCTAssertEqual(run.ran, ["user-0.sqlite"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: deleted))
        XCTAssertTrue(run.report.stores[0].notes.contains { $0.contains("is gone") }, "\(run.report.stores[0].notes)")

        // A result replaced by another file: migrated again too.
        try FileManager.default.removeItem(atPath: folder.path("out/user-1.sqlite"))
        try FileManager.default.copyItem(atPath: folder.path("out/user-2.sqlite"), toPath: folder.path("out/user-1.sqlite"))
        run = try runAgreeing(options)
        XCTAssertEqual(run.ran, ["user-1.sqlite"])
        XCTAssertEqual(try runAgreeing(options).ran, [])
    }

    func testTwoBatchesAtOnceOnOneOutput() throws {
        let options = try makeBatch(stores: 6)
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let outcomes = Outcomes()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                start.wait()
                do {
                    let report = try Batch(options: options).run()
                    outcomes.add("ran: \(report.count(.done)) done, \(report.count(.failed)) failed")
                } catch {
                    outcomes.add("\(error)")
                }
            }
        }
        start.signal()
        start.signal()
        group.wait()
        // Either the second found the first running (refused, naming it), or it came after
        // and found every store done: never a store done twice, never one failed.
        for outcome in outcomes.all {
            XCTAssertTrue(outcome.hasPrefix("ran: 6 done, 0 failed") || outcome.hasPrefix("ran: 0 done, 0 failed")
                          || outcome.contains("another etl batch"), outcome)
        }
        let entries = try BatchManifest.read(path: options.manifest).entries
        for store in options.stores {
            XCTAssertEqual(entries.filter { $0.path == store.relativePath && $0.status == .done }.count, 1, store.relativePath)
            XCTAssertFalse(entries.contains { $0.path == store.relativePath && $0.status == .failed }, store.relativePath)
        }
        XCTAssertEqual(try runAgreeing(options).ran, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: BatchLock.path(ofManifest: options.manifest)), "the lock file is left behind")
    }

    func testASecondBatchIsRefusedWhileTheFirstHoldsTheLock() throws {
        let options = try makeBatch(stores: 1)
        let held = try XCTUnwrap(try BatchLock.take(options))
        XCTAssertThrowsError(try Batch(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("another etl batch (process \(getpid())) is running this batch"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: options.manifest), "the refused batch wrote its manifest")
        held.release()
        XCTAssertEqual(try Batch(options: options).run().count(.done), 1)
    }

    /// Each job carries one lock file and one work database from store to store
    /// (`RunFileCarrier`), and every store's run holds its destination's lock while it
    /// works: a store another run holds fails, naming it, and the others are done; the
    /// parking files a killed batch left go.
    func testEachJobCarriesOneLockFileAndWorkDatabaseAndAStoreAnotherRunHoldsIsRefused() throws {
        var options = try makeBatch(stores: 6)
        let out = folder.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let stale = BatchLock.path(ofManifest: options.manifest) + ".job1"
        try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: stale))
        // A stale parked work database: never placed for a run (it is removed first).
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: stale + ".work"))
        let heldDestination = out + "/user-3.sqlite"
        let held = try RunLock(destination: heldDestination)
        // Seen by each run before it validates: its lock file, kept open so that no file of
        // the batch's is freed (and its inode given to another) before the end.
        let seen = Outcomes()
        let works = Outcomes()
        let opened = Descriptors()
        options.run.beforeValidation = { database in
            let name = (database.path as NSString).lastPathComponent.replacingOccurrences(of: ".etl-tmp", with: "")
            let lockFile = out + "/" + name + ".etl-lock"
            let fd = open(lockFile, O_RDONLY)
            XCTAssertGreaterThanOrEqual(fd, 0, "\(lockFile) is not there while its run works")
            var info = stat()
            fstat(fd, &info)
            opened.add(fd)
            seen.add("\(info.st_ino)")
            let work = open(out + "/" + name + ".etl-work", O_RDONLY)
            XCTAssertGreaterThanOrEqual(work, 0)
            fstat(work, &info)
            opened.add(work)
            works.add("\(info.st_ino)")
            XCTAssertEqual(RunLock.holder(ofDestination: out + "/" + name), getpid())
        }
        let report = try Batch(options: options).run()
        held.release()
        opened.closeAll()
        XCTAssertEqual(report.count(.done), 5)
        let failed = try XCTUnwrap(report.failures.first)
        XCTAssertEqual(failed.path, "user-3.sqlite")
        XCTAssertTrue(failed.error?.contains("another etl run (process \(getpid())) is working on this destination") ?? false, failed.error ?? "")
        XCTAssertEqual(seen.all.count, 5)
        XCTAssertLessThanOrEqual(Set(seen.all).count, 2, "one lock file per job (2), not one per store: \(seen.all)")
        XCTAssertEqual(works.all.count, 5)
        XCTAssertLessThanOrEqual(Set(works.all).count, 2, "one work database per job (2), not one per store: \(works.all)")
        // Every result is what a run of its own writes (the carried work database was rewritten whole).
        for index in [0, 1, 2, 4, 5] {
            var migration = Migration(pipeline: options.pipeline)
            migration.source = folder.path("archive/user-\(index).sqlite")
            migration.destination = folder.path("alone/user-\(index).sqlite")
            _ = try migration.run()
            try assertSameStore(out + "/user-\(index).sqlite", folder.path("alone/user-\(index).sqlite"))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains("lock") }
        XCTAssertEqual(left, [], "lock and parking files left behind")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.contains(".etl-work") }, [])
    }

    final class Descriptors: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [Int32] = []
        func add(_ fd: Int32) { lock.withLock { list.append(fd) } }
        func closeAll() { lock.withLock { list.forEach { close($0) }; list = [] } }
    }

    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ text: String) { lock.withLock { list.append(text) } }
        var all: [String] { lock.withLock { list } }
    }

    /// A source changed in a middle page, its size and modification time put back: only
    /// `--verify-sources` sees it.
    func testVerifySourcesCatchesAMiddlePageChange() throws {
        var options = try makeBatch(stores: 1)
        options.verifySources = true
        try runAgreeing(options)
        let source = options.stores[0].path
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: source)))
        XCTAssertGreaterThan(bytes.count, 3 * 4096, "the store is too small to have a middle page")
        var info = stat()
        XCTAssertEqual(stat(source, &info), 0)
        // A byte of the free space in a middle page: the store stays sound, its content changed.
        let middle = try XCTUnwrap((4096..<(bytes.count - 4096)).first { bytes[$0] == 0 && $0 % 4096 > 2048 && bytes[$0 - 1] == 0 && bytes[$0 + 1] == 0 })
        bytes[middle] = 1
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        var times = [info.st_atim, info.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, source, &times, 0), 0)

        // Without the flag: served from the manifest.
        options.verifySources = false
        XCTAssertEqual(try runAgreeing(options).ran, [])
        options.verifySources = true
        let run = try runAgreeing(options)
        XCTAssertEqual(run.ran, [options.stores[0].relativePath])
        XCTAssertTrue(run.dry[0].reason?.contains("content") ?? false, "\(run.dry)")
        XCTAssertEqual(try runAgreeing(options).ran, [])
    }
}
