import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport
@testable import ETLBatch

/// The parts of `etl batch` that need no store: shard assignment, `--shard auto`, the
/// manifest file, zstd frame scanning, store discovery, metrics.
final class BatchUnitTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    // MARK: Shards

    func testShardAssignmentIsStableAcrossProcessesAndVersions() throws {
        // The FNV-1a test vector, then fixed answers: these must never change, or shards of
        // a batch run by different versions of etl would overlap and miss stores.
        XCTAssertEqual(String(BatchShard.fnv1a(Array("a".utf8)), radix: 16), "af63dc4c8601ec8c")
        let expected: [(String, Int, Int, Int)] = [
            ("a.sqlite", 2, 10, 672), ("archive/2024/store-1.sqlite", 1, 14, 427),
            ("archive/2024/store-2.sqlite", 0, 8, 205), ("users/42/Books.sqlite", 3, 3, 192), ("x", 1, 11, 160),
        ]
        for (path, four, sixteen, thousand) in expected {
            XCTAssertEqual(BatchShard.shard(of: path, count: 4), four, path)
            XCTAssertEqual(BatchShard.shard(of: path, count: 16), sixteen, path)
            XCTAssertEqual(BatchShard.shard(of: path, count: 1000), thousand, path)
            XCTAssertEqual(BatchShard.shard(of: path, count: 1), 0)
        }
        // Deterministic: the same answer every time, and exactly one shard contains each path.
        for i in 0..<500 {
            let path = "archive/\(i % 7)/store-\(i).sqlite"
            let shard = BatchShard.shard(of: path, count: 5)
            XCTAssertEqual(BatchShard.shard(of: path, count: 5), shard)
            let owners = try (0..<5).filter { try BatchShard(index: $0, count: 5).contains(path) }
            XCTAssertEqual(owners, [shard])
        }
    }

    func testShardsAreBalanced() {
        let paths = (0..<8000).map { "archive/\($0 / 100)/store-\($0).sqlite" }
        for count in [2, 4, 7, 16] {
            var sizes = [Int](repeating: 0, count: count)
            for path in paths { sizes[BatchShard.shard(of: path, count: count)] += 1 }
            let mean = Double(paths.count) / Double(count)
            for (index, size) in sizes.enumerated() {
                XCTAssertLessThan(abs(Double(size) - mean) / mean, 0.12, "shard \(index)/\(count) has \(size) stores, mean \(mean)")
            }
        }
    }

    func testMoreShardsMoveFewStores() {
        let paths = (0..<4000).map { "stores/\($0).sqlite" }
        let before = paths.map { BatchShard.shard(of: $0, count: 4) }
        let after = paths.map { BatchShard.shard(of: $0, count: 5) }
        let moved = zip(before, after).filter { $0 != $1 }
        // About 1/5 move, and only to the new shard.
        XCTAssertEqual(Double(moved.count) / Double(paths.count), 0.2, accuracy: 0.04)
        XCTAssertTrue(moved.allSatisfy { $0.1 == 4 })
        // Adding stores moves none: each store's shard depends on its own path only.
        let more = paths + (0..<1000).map { "stores/new-\($0).sqlite" }
        XCTAssertEqual(more.prefix(paths.count).map { BatchShard.shard(of: $0, count: 4) }, before)
    }

    func testParseShard() throws {
        XCTAssertEqual(try BatchShard.parse("0/4"), try BatchShard(index: 0, count: 4))
        XCTAssertEqual(try BatchShard.parse("3/4").description, "3/4")
        XCTAssertEqual(try BatchShard.parse("3/4").fileTag, "shard-3-of-4")
        for bad in ["4/4", "-1/4", "1/0", "a/b", "1", "1/2/3", ""] {
            XCTAssertThrowsError(try BatchShard.parse(bad), bad) { XCTAssertTrue($0 is BatchShardError) }
        }
        XCTAssertThrowsError(try BatchShard.parse("4/4")) { error in
            XCTAssertTrue("\(error)".contains("not between 0 and 3"), "\(error)")
        }
    }

    func testShardAutoFromKubernetesIndexedJob() throws {
        var found = try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "ETL_SHARD_COUNT": "4"])
        XCTAssertEqual(found.shard, try BatchShard(index: 2, count: 4))
        XCTAssertTrue(found.origin.contains("Kubernetes"), found.origin)
        found = try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shardCount: 3)
        XCTAssertEqual(found.shard, try BatchShard(index: 0, count: 3))
        // Agreeing flag and variable are fine.
        XCTAssertEqual(try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "1", "ETL_SHARD_COUNT": "2"], shardCount: 2).shard,
                       try BatchShard(index: 1, count: 2))

        assertShardError(["JOB_COMPLETION_INDEX": "2"], nil, contains: ["not the number of shards", "--shard-count", "ETL_SHARD_COUNT"])
        assertShardError(["JOB_COMPLETION_INDEX": "4", "ETL_SHARD_COUNT": "4"], nil, contains: ["JOB_COMPLETION_INDEX=4", "not below", "completions"])
        assertShardError(["JOB_COMPLETION_INDEX": "x", "ETL_SHARD_COUNT": "4"], nil, contains: ["JOB_COMPLETION_INDEX='x'", "whole number"])
        assertShardError(["JOB_COMPLETION_INDEX": "1", "ETL_SHARD_COUNT": "4"], 3, contains: ["--shard-count 3", "ETL_SHARD_COUNT=4", "disagree"])
        assertShardError(["JOB_COMPLETION_INDEX": "0", "ETL_SHARD_COUNT": "0"], nil, contains: ["at least 1"])
    }

    func testShardAutoFromSlurmArray() throws {
        var found = try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4",
                                                    "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3"])
        XCTAssertEqual(found.shard, try BatchShard(index: 3, count: 4))
        XCTAssertTrue(found.origin.contains("Slurm"), found.origin)
        // --array=1-4 counts from its minimum.
        found = try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4",
                                                "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"])
        XCTAssertEqual(found.shard, try BatchShard(index: 0, count: 4))

        assertShardError(["SLURM_ARRAY_TASK_ID": "1"], nil, contains: ["SLURM_ARRAY_TASK_COUNT", "job array"])
        assertShardError(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"], nil, contains: ["SLURM_ARRAY_TASK_ID=4", "does not fit"])
        assertShardError(["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4"],
                         nil, contains: ["contiguous", "--array=0-2"])
        assertShardError(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"], 2, contains: ["SLURM_ARRAY_TASK_COUNT=4", "must agree"])
    }

    func testShardAutoWithoutOrWithBothSchedulers() {
        assertShardError([:], nil, contains: ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "neither is set", "--shard INDEX/COUNT"])
        assertShardError(["JOB_COMPLETION_INDEX": "", "PATH": "/bin"], nil, contains: ["neither is set"])
        assertShardError(["JOB_COMPLETION_INDEX": "1", "ETL_SHARD_COUNT": "2", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"],
                         nil, contains: ["both", "--shard INDEX/COUNT"])
    }

    private func assertShardError(_ environment: [String: String], _ count: Int?, contains parts: [String],
                                  file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try BatchShard.fromEnvironment(environment, shardCount: count), file: file, line: line) { error in
            XCTAssertTrue(error is BatchShardError, "\(type(of: error))", file: file, line: line)
            for part in parts {
                XCTAssertTrue("\(error)".contains(part), "\(error)\n  does not contain: \(part)", file: file, line: line)
            }
        }
    }

    // MARK: Manifest

    private func entry(_ name: String, _ status: BatchStatus) -> BatchStoreResult {
        var result = BatchStoreResult(store: BatchStore(path: "/archive/" + name, relativePath: name), status: status)
        result.rows = ["Book": name.count * 10]
        result.fromVersion = "books-v1"
        result.toVersion = "books-v3"
        return result
    }

    /// Given `--out`, the manifest goes in the output folder; in place, beside the pipeline and
    /// named after it; a named file wins. Each shard gets its own, and `{shard}` names it.
    func testManifestPathPerOutputAndShard() throws {
        let whole = BatchShard.all, second = try BatchShard.parse("1/4")
        func path(_ given: String?, _ output: BatchOptions.Output, _ shard: BatchShard) -> String {
            BatchManifest.path(given: given, output: output, pipeline: "pipelines/up.json", shard: shard, currentDirectory: "/work")
        }
        XCTAssertEqual(path(nil, .directory("out"), whole), "/work/out/.etl-batch-manifest.jsonl.zst")
        XCTAssertEqual(path(nil, .directory("/data/out-{shard}"), second), "/data/out-shard-1-of-4/.etl-batch-manifest.shard-1-of-4.jsonl.zst")
        XCTAssertEqual(path(nil, .inPlace(backupDirectory: nil), whole), "/work/pipelines/.etl-batch-manifest.up.json.jsonl.zst")
        XCTAssertEqual(path(nil, .inPlace(backupDirectory: "bak"), second), "/work/pipelines/.etl-batch-manifest.up.json.shard-1-of-4.jsonl.zst")
        XCTAssertEqual(path("m-{shard}.zst", .directory("out"), whole), "/work/m-all.zst")
        XCTAssertEqual(path("../m-{shard}.zst", .inPlace(backupDirectory: nil), second), "/m-shard-1-of-4.zst")
    }

    private var header: BatchManifest.Header { BatchManifest.Header(pipeline: "/p.json", output: "out /out", shard: "all") }

    func testManifestKeepsEveryEntryAndTheLatestPerStoreWins() throws {
        let path = folder.path("m.jsonl.zst")
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            try manifest.append(entry("a.sqlite", .started))
            try manifest.append(entry("b.sqlite", .started))
            try manifest.append(entry("a.sqlite", .done))
            try manifest.append(entry("b.sqlite", .failed))
        }
        let contents = try BatchManifest.read(path: path)
        XCTAssertEqual(contents.header?.pipeline, "/p.json")
        XCTAssertEqual(contents.entries.count, 4)
        XCTAssertEqual(contents.latest["/archive/a.sqlite"]?.status, .done)
        XCTAssertEqual(contents.latest["/archive/b.sqlite"]?.status, .failed)
        XCTAssertEqual(contents.latest["/archive/a.sqlite"]?.rows, ["Book": 80])
        XCTAssertEqual(contents.damagedFrames, 0)
        // Plain zstd JSON lines: one frame per line, each decompresses on its own.
        let lines = String(decoding: try Zstd.decompress(Array(try bytes(path))), as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[0].hasPrefix("{\"batch\":"), String(lines[0]))
        // Reopened: another batch's manifest is refused; --restart clears it.
        XCTAssertThrowsError(try BatchManifest(path: path, header: BatchManifest.Header(pipeline: "/q.json", output: "out /out", shard: "all"),
                                               restart: false)) { error in
            XCTAssertTrue("\(error)".contains("belongs to another batch"), "\(error)")
            XCTAssertTrue("\(error)".contains("--restart"), "\(error)")
        }
        let restarted = try BatchManifest(path: path, header: header, restart: true)
        XCTAssertTrue(restarted.contents.entries.isEmpty)
        XCTAssertTrue(try BatchManifest.read(path: path).entries.isEmpty)
    }

    /// A durable entry is synced as it is appended; an outcome with the next sync or the
    /// batch's end: a batch of three stores syncs its manifest at most five times (header,
    /// the three starts — shared when they come together —, end), not eight, and every entry
    /// is in the file.
    func testAStoresOutcomeIsSyncedWithTheNextEntryOrTheBatchsEnd() throws {
        let path = folder.path("m.jsonl.zst")
        let manifest = try BatchManifest(path: path, header: header, restart: false)
        XCTAssertEqual(manifest.syncs, 1, "the header")
        try manifest.append(entry("a.sqlite", .started))
        try manifest.append(entry("a.sqlite", .done), durable: false)
        XCTAssertEqual(manifest.syncs, 2)
        try manifest.sync()
        XCTAssertEqual(manifest.syncs, 3)
        XCTAssertEqual(try BatchManifest.read(path: path).latest["/archive/a.sqlite"]?.status, .done)

        let archive = folder.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        for seed in 1...3 { try BooksSample.write(rows: 10, seed: UInt64(seed), to: archive + "/\(seed).sqlite") }
        let stores = try BatchStoreList.find(archive, currentDirectory: folder.url.path, excluding: []).stores
        let batch = Batch(options: BatchOptions(pipeline: repositoryPath("pipelines/books.json"), stores: stores,
                                                output: .directory(folder.path("out")), manifest: folder.path("batch.jsonl.zst"), jobs: 2))
        XCTAssertEqual(try batch.run().stores.map(\.status), [.done, .done, .done])
        XCTAssertTrue((3...5).contains(batch.manifest.syncs), "\(batch.manifest.syncs)")
        XCTAssertEqual(try BatchManifest.read(path: folder.path("batch.jsonl.zst")).latest.values.map(\.status), [.done, .done, .done])
    }

    /// One sync covers every line written before it: a line synced by another thread (the
    /// manifest's syncing thread) is not synced again by the store that waits for it.
    func testASyncCoversTheLinesWrittenBeforeItAndIsNotRepeated() throws {
        let path = folder.path("shared.jsonl.zst")
        let manifest = try BatchManifest(path: path, header: header, restart: false)
        defer { manifest.stopSyncing() }
        let a = try manifest.append(entry("a.sqlite", .started), durable: false)
        let b = try manifest.append(entry("b.sqlite", .started), durable: false)
        XCTAssertEqual(manifest.syncs, 1, "the header only")
        try manifest.sync(through: a)
        XCTAssertEqual(manifest.syncs, 2)
        try manifest.sync(through: b)
        XCTAssertEqual(manifest.syncs, 2, "b was written before the sync for a")
        let c = try manifest.append(entry("c.sqlite", .started), durable: false)
        manifest.syncInBackground(through: c)
        try manifest.sync(through: c)
        XCTAssertEqual(manifest.syncs, 3, "the background sync and the wait share one fsync")
        XCTAssertEqual(try BatchManifest.read(path: path).entries.count, 3)
    }

    func testManifestIgnoresATruncatedLastFrameAndRepairsItBeforeAppending() throws {
        let path = folder.path("m.jsonl.zst")
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            try manifest.append(entry("a.sqlite", .done))
            try manifest.append(entry("b.sqlite", .done))
        }
        let whole = Array(try bytes(path))
        XCTAssertEqual(BatchManifest.parse(whole).validLength, whole.count)
        // Write a third entry, then cut the file at every byte of it.
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            try manifest.append(entry("c-with-a-longer-name.sqlite", .failed))
        }
        let three = Array(try bytes(path))
        XCTAssertGreaterThan(three.count, whole.count)
        for cut in whole.count..<three.count {
            let contents = BatchManifest.parse(Array(three[..<cut]))
            XCTAssertEqual(contents.entries.map(\.path), ["a.sqlite", "b.sqlite"], "cut at \(cut)")
            XCTAssertEqual(contents.validLength, whole.count, "cut at \(cut)")
            XCTAssertEqual(contents.damagedFrames, 0)
        }
        // A kill left half a frame: opening to append cuts it off, so the next entry is readable.
        try Data(three[..<(three.count - 7)]).write(to: URL(fileURLWithPath: path))
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            XCTAssertEqual(manifest.contents.entries.count, 2)
            try manifest.append(entry("d.sqlite", .done))
        }
        let repaired = try BatchManifest.read(path: path)
        XCTAssertEqual(repaired.entries.map(\.path), ["a.sqlite", "b.sqlite", "d.sqlite"])
        XCTAssertEqual(repaired.validLength, try bytes(path).count)
    }

    func testManifestSkipsADamagedFrameInTheMiddle() throws {
        let path = folder.path("m.jsonl.zst")
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            for name in ["a.sqlite", "b.sqlite", "c.sqlite"] { try manifest.append(entry(name, .done)) }
        }
        var data = Array(try bytes(path))
        // Find the frame of b (the third) and flip a byte of its content.
        var offsets: [Int] = [0]
        while case .complete(let length) = ZstdFrameScanner.scan(data, at: offsets.last!) , offsets.last! + length < data.count {
            offsets.append(offsets.last! + length)
        }
        XCTAssertEqual(offsets.count, 4)
        // Its content checksum (the frame's last 4 bytes): the frame still parses, the checksum fails.
        data[offsets[3] - 2] ^= 0x5A
        var contents = BatchManifest.parse(data)
        XCTAssertEqual(contents.entries.map(\.path), ["a.sqlite", "c.sqlite"])
        XCTAssertEqual(contents.damagedFrames, 1)
        XCTAssertEqual(contents.validLength, data.count)
        // Inside its compressed data: caught too (by the checksum or the decoder), never a wrong entry.
        data[offsets[3] - 2] ^= 0x5A
        data[offsets[2] + 12] ^= 0x5A
        contents = BatchManifest.parse(data)
        XCTAssertFalse(contents.entries.contains { $0.path == "b.sqlite" })
        XCTAssertEqual(contents.entries.first?.path, "a.sqlite")
    }

    /// Any byte of a frame damaged, its header's included (a wrong magic number, block type
    /// or size): reading resumes at the next frame, which, and every one after it, is kept.
    func testManifestResynchronisesAfterADamagedFrameHeader() throws {
        let path = folder.path("m.jsonl.zst")
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            for name in ["a.sqlite", "b.sqlite", "c.sqlite", "d.sqlite"] { try manifest.append(entry(name, .done)) }
        }
        let data = Array(try bytes(path))
        var offsets: [Int] = [0]
        while case .complete(let length) = ZstdFrameScanner.scan(data, at: offsets.last!), offsets.last! + length < data.count {
            offsets.append(offsets.last! + length)
        }
        XCTAssertEqual(offsets.count, 5)
        for at in offsets[2]..<offsets[3] {
            for flip: UInt8 in [0x01, 0x10, 0x80, 0xFF] {
                var damaged = data
                damaged[at] ^= flip
                let contents = BatchManifest.parse(damaged)
                let paths = contents.entries.map(\.path)
                XCTAssertEqual(paths.filter { $0 != "b.sqlite" }, ["a.sqlite", "c.sqlite", "d.sqlite"], "byte \(at) ^ \(flip)")
                XCTAssertTrue(contents.entries.allSatisfy { $0.status == .done }, "byte \(at) ^ \(flip)")
                XCTAssertEqual(contents.validLength, damaged.count, "byte \(at) ^ \(flip)")
                XCTAssertEqual(contents.header?.pipeline, "/p.json")
            }
        }
        // Opened to append after such damage: nothing after it is cut off.
        var damaged = data
        damaged[offsets[2]] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            try manifest.append(entry("e.sqlite", .done))
        }
        XCTAssertEqual(try BatchManifest.read(path: path).entries.map(\.path), ["a.sqlite", "c.sqlite", "d.sqlite", "e.sqlite"])
    }

    /// Numbers no batch writes (a count at the top of Int, a negative one, a time beyond any
    /// clock): the entry is read as a damaged one, so a report never sums it into a trap.
    func testManifestEntriesWithNumbersOutOfRangeAreSkipped() throws {
        let path = folder.path("m.jsonl.zst")
        do {
            let manifest = try BatchManifest(path: path, header: header, restart: false)
            try manifest.append(entry("a.sqlite", .done))
            var huge = entry("huge.sqlite", .done)
            huge.rows = ["Book": .max, "Author": 1]
            var negative = entry("negative.sqlite", .done)
            negative.rows = ["Book": -1]
            var slow = entry("slow.sqlite", .failed)
            slow.seconds = 1e300
            for bad in [huge, negative, slow] { try manifest.append(bad) }
            try manifest.append(entry("c.sqlite", .done))
        }
        let contents = try BatchManifest.read(path: path)
        XCTAssertEqual(contents.entries.map(\.path), ["a.sqlite", "c.sqlite"])
        XCTAssertEqual(contents.damagedFrames, 3)
        XCTAssertEqual(contents.validLength, try bytes(path).count)
    }

    func testFrameScannerFindsEveryFrameEnd() throws {
        var random = SplitMix64(seed: 7)
        var file: [UInt8] = []
        var ends: [Int] = []
        for size in [0, 1, 100, 5000, 200_000, 300_000] {
            // Text-like for some, random (stored as raw blocks) for others.
            let payload = (0..<size).map { i in size % 2 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8(ascii: "a") + UInt8(i % 7) }
            file += try Zstd.compress(payload)
            ends.append(file.count)
        }
        var offset = 0
        for end in ends {
            guard case .complete(let length) = ZstdFrameScanner.scan(file, at: offset) else { return XCTFail("no frame at \(offset)") }
            XCTAssertEqual(offset + length, end)
            offset = end
        }
        XCTAssertEqual(ZstdFrameScanner.scan(Array(file[..<(ends[4] - 1)]), at: ends[3]), .truncated)
        XCTAssertEqual(ZstdFrameScanner.scan(Array("hello world".utf8), at: 0), .invalid)
        XCTAssertEqual(ZstdFrameScanner.scan([0x28, 0xB5], at: 0), .truncated)
    }

    // MARK: Stores

    func testGlobMatching() {
        func matches(_ pattern: String, _ path: String) -> Bool {
            Glob(pattern.split(separator: "/").map(String.init)).matches(path)
        }
        XCTAssertTrue(matches("**/*.sqlite", "a.sqlite"))
        XCTAssertTrue(matches("**/*.sqlite", "x/y/z/a.sqlite"))
        XCTAssertFalse(matches("**/*.sqlite", "x/y/a.sqlite-wal"))
        XCTAssertTrue(matches("*/*.sqlite", "x/a.sqlite"))
        XCTAssertFalse(matches("*/*.sqlite", "a.sqlite"))
        XCTAssertFalse(matches("*/*.sqlite", "x/y/a.sqlite"))
        XCTAssertTrue(matches("20[12][0-9]/store-?.sq*", "2019/store-7.sqlite"))
        XCTAssertFalse(matches("20[12][0-9]/store-?.sq*", "2031/store-7.sqlite"))
        XCTAssertTrue(matches("[!a]*.db", "b.db"))
        XCTAssertFalse(matches("[!a]*.db", "a.db"))
        XCTAssertFalse(matches("**/*.sqlite", ".hidden/a.sqlite"))
        XCTAssertFalse(matches("*", ".a.sqlite"))
        XCTAssertTrue(matches(".*", ".a.sqlite"))
        XCTAssertTrue(matches("x/**", "x/y/z"))
        XCTAssertTrue(matches("a*b*c", "aXXbYYc"))
        XCTAssertFalse(matches("a*b*c", "aXXbYYcd"))
    }

    func testStoreDiscoveryByGlobFolderAndListNeverTakesWorkFiles() throws {
        let root = folder.path("archive")
        let files = ["2019/a.sqlite", "2019/a.sqlite-wal", "2019/a.sqlite-shm", "2019/a.sqlite.bak", "2020/b.sqlite",
                     "2020/b.sqlite.etl-checkpoint", "2020/b.sqlite.etl-tmp", "2020/b.sqlite.etl-original", "2020/deep/c.sqlite",
                     "2020/notes.txt", ".hidden/d.sqlite", "e.sqlite", "out/x.sqlite"]
        for file in files {
            let path = root + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        }
        let cwd = folder.url.path
        var list = try BatchStoreList.find("archive/**/*.sqlite", currentDirectory: cwd, excluding: ["archive/out"])
        XCTAssertEqual(list.base, root)
        XCTAssertEqual(list.stores.map(\.relativePath), ["2019/a.sqlite", "2020/b.sqlite", "2020/deep/c.sqlite", "e.sqlite"])
        XCTAssertEqual(list.stores.first?.path, root + "/2019/a.sqlite")
        list = try BatchStoreList.find("archive/20*/*.sqlite", currentDirectory: cwd)
        XCTAssertEqual(list.stores.map(\.relativePath), ["2019/a.sqlite", "2020/b.sqlite"])
        list = try BatchStoreList.find("archive", currentDirectory: cwd, excluding: [root + "/out"])
        XCTAssertEqual(list.stores.map(\.relativePath), ["2019/a.sqlite", "2020/b.sqlite", "2020/deep/c.sqlite", "2020/notes.txt", "e.sqlite"])
        try Data("# stores\narchive/2020/deep/c.sqlite\n\n\(root)/2020/b.sqlite\narchive/2020/b.sqlite\n".utf8)
            .write(to: URL(fileURLWithPath: folder.path("list.txt")))
        list = try BatchStoreList.find("@list.txt", currentDirectory: cwd)
        XCTAssertEqual(list.base, root + "/2020")
        XCTAssertEqual(list.stores.map(\.relativePath), ["b.sqlite", "deep/c.sqlite"])
        XCTAssertThrowsError(try BatchStoreList.find("nowhere/**/*.sqlite", currentDirectory: cwd)) { XCTAssertTrue($0 is BatchUsageError) }
        XCTAssertThrowsError(try BatchStoreList.find("@missing.txt", currentDirectory: cwd)) { XCTAssertTrue($0 is BatchUsageError) }
        // A shard's stores are a subset; all shards together are the whole list, once.
        let all = try BatchStoreList.find("archive", currentDirectory: cwd)
        let parts = try (0..<3).map { all.shard(try BatchShard(index: $0, count: 3)) }
        XCTAssertEqual(parts.flatMap { $0 }.map(\.relativePath).sorted(), all.stores.map(\.relativePath))
    }

    // MARK: Metrics

    func testMetricsFileKeepsTheLastSuccessOfAnEarlierRun() throws {
        var ok = entry("a.sqlite", .done)
        ok.rows = ["Book": 40, "User": 2]
        let good = BatchReport(pipeline: "/x/p.json", shard: "1/4", output: "out /o", manifest: "/o/m", started: 100, finished: 160,
                               interrupted: false, stores: [ok, entry("b.sqlite", .skipped)])
        let text = BatchMetrics.render(good)
        for line in ["# TYPE etl_batch_stores gauge",
                     #"etl_batch_stores{pipeline="p.json",shard="1/4",status="done"} 1.0"#,
                     #"etl_batch_stores{pipeline="p.json",shard="1/4",status="skipped"} 1.0"#,
                     #"etl_batch_stores{pipeline="p.json",shard="1/4",status="failed"} 0.0"#,
                     #"etl_batch_rows_migrated{pipeline="p.json",shard="1/4"} 42.0"#,
                     #"etl_batch_duration_seconds{pipeline="p.json",shard="1/4"} 60.0"#,
                     #"etl_batch_last_success_timestamp_seconds{pipeline="p.json",shard="1/4"} 160.0"#] {
            XCTAssertTrue(text.split(separator: "\n").contains(Substring(line)), "missing \(line) in\n\(text)")
        }
        // A run with a failure keeps the previous success time; without one, there is none.
        let bad = BatchReport(pipeline: "/x/p.json", shard: "1/4", output: "out /o", manifest: "/o/m", started: 200, finished: 230,
                              interrupted: false, stores: [ok, entry("c.sqlite", .failed)])
        XCTAssertTrue(BatchMetrics.render(bad, previous: text).contains(#"etl_batch_last_success_timestamp_seconds{pipeline="p.json",shard="1/4"} 160.0"#))
        XCTAssertFalse(BatchMetrics.render(bad).contains("last_success"))
        // Written through a temporary file: only the metrics file is left.
        let path = folder.path("metrics/etl.prom")
        try BatchMetrics.write(good, to: path)
        try BatchMetrics.write(bad, to: path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path("metrics")), ["etl.prom"])
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("last_success_timestamp_seconds{pipeline=\"p.json\",shard=\"1/4\"} 160.0"))
    }
}

/// A batch's report counts each store's rejected rows and nulled values (issue 42):
/// a store whose run nulls values its types do not read says how many.
final class BatchUnreadableCountTests: XCTestCase {
    func testTheReportCountsNulledValuesPerStore() throws {
        let folder = try TemporaryFolder()
        let archive = folder.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        for seed in 1...2 { try BooksSample.write(rows: 10, seed: UInt64(seed), to: archive + "/\(seed).sqlite") }
        let db = try Database(path: archive + "/2.sqlite", mode: .readWrite)
        try db.execute("UPDATE Book SET published = 'garbage' WHERE rowid IN (1, 2)")
        db.close()
        let pipeline = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"models/", with: "\"" + repositoryPath("pipelines/models") + "/")
            .replacingOccurrences(of: "\"workers\": 2 }", with: "\"workers\": 2, \"unreadable\": \"null\" }")
        let file = folder.path("books.json")
        try Data(pipeline.utf8).write(to: URL(fileURLWithPath: file))
        let stores = try BatchStoreList.find(archive, currentDirectory: folder.url.path, excluding: []).stores
        let batch = Batch(options: BatchOptions(pipeline: file, stores: stores, output: .directory(folder.path("out")),
                                                manifest: folder.path("batch.jsonl.zst"), jobs: 1))
        let report = try batch.run()
        XCTAssertEqual(report.stores.map(\.status), [.done, .done])
        XCTAssertEqual(report.stores.map(\.nulled), [nil, 2])
        XCTAssertEqual(report.stores.map(\.rejected), [nil, nil])
    }
}
