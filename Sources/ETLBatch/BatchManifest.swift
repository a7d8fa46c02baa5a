import Foundation
import ETL

/// The batch's memory: every store's outcome, appended as it happens, so that running the
/// same command again continues where the batch stopped.
///
/// The file is JSON lines compressed with zstd — one independent zstd frame (with a
/// content checksum) per line, appended with `O_APPEND` and fsynced (a store's outcome
/// with the next entry: `append`) — so `zstdcat FILE`
/// reads it, and a kill in the middle of a write can damage only the frame being written.
/// A damaged frame is skipped, reading going on at the next frame; an incomplete or damaged
/// last frame is cut off when the file is opened to append, so later entries never follow garbage.
///
/// The first line names the batch (pipeline, output, shard); a store's latest line is its
/// state. Each shard has its own file, so processes never write the same one.
public final class BatchManifest: @unchecked Sendable {
    /// The first line: which batch this file belongs to.
    public struct Header: Sendable, Codable, Equatable {
        public var pipeline: String
        /// `out DIR` or `in place`.
        public var output: String
        public var shard: String
        public var created: Double

        public init(pipeline: String, output: String, shard: String) {
            self.pipeline = pipeline
            self.output = output
            self.shard = shard
            created = Date().timeIntervalSince1970
        }

        func sameBatch(as other: Header) -> Bool {
            pipeline == other.pipeline && output == other.output && shard == other.shard
        }
    }

    /// One line of the file: the header, the inputs store entries name by digest
    /// (written once per digest, before the first entry naming it), or a store's entry.
    struct Line: Codable {
        var batch: Header?
        var store: BatchStoreResult?
        var inputs: BatchInputs?
    }

    /// What a manifest may hold. No batch writes more (`bounded` clamps what it writes);
    /// a file that does is refused, not loaded: a planted file of a few hundred kilobytes
    /// must not make a batch decompress gigabytes (a "done" entry with a 15 MiB note,
    /// 400 times over, made the next batch peak at 12 GB).
    public enum Bounds {
        /// One line, decompressed.
        public static let line = 256 << 10
        /// All lines together, decompressed.
        public static let total = 1 << 30
        /// A note, and an entry's error.
        public static let note = 4 << 10
        public static let notes = 64
    }

    /// What a manifest file holds.
    public struct Contents: Sendable {
        public var header: Header?
        /// Store entries in the order written.
        public var entries: [BatchStoreResult]
        /// Bytes of whole, readable frames from the start; after them a write was cut short.
        public var validLength: Int
        /// Frames skipped because they were damaged (not counting a cut-off tail).
        public var damagedFrames: Int
        /// The inputs entries name, by digest (`BatchStoreResult.inputs`).
        public var inputs: [String: BatchInputs] = [:]
        /// Why the file is over its bounds (`Bounds`); reading stopped there.
        public var overBounds: String?

        /// Each store's latest entry, by absolute path.
        public var latest: [String: BatchStoreResult] {
            var latest: [String: BatchStoreResult] = [:]
            for entry in entries { latest[entry.store] = entry }
            return latest
        }
    }

    public let path: String
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    public private(set) var contents: Contents

    /// The default file name: `.etl-batch-manifest[.shard-I-of-N].jsonl.zst`.
    public static func fileName(shard: BatchShard) -> String {
        ".etl-batch-manifest" + (shard.isWhole ? "" : "." + shard.fileTag) + ".jsonl.zst"
    }

    /// Where a batch's manifest lives (absolute): `given` when the user named a file (`{shard}`
    /// expanded, see `BatchShard.expand`); else in the output folder,
    /// `OUTDIR/.etl-batch-manifest[.shard-I-of-N].jsonl.zst`; else (in place, where no folder
    /// is the batch's own) beside the pipeline, named after it —
    /// `.etl-batch-manifest.PIPELINE[.shard-I-of-N].jsonl.zst` — so two pipelines run over
    /// the same stores keep apart.
    public static func path(given: String?, output: BatchOptions.Output, pipeline: String, shard: BatchShard,
                            currentDirectory: String = FileManager.default.currentDirectoryPath) -> String {
        if let given { return shard.expand(given, in: currentDirectory) }
        switch output {
        case .directory(let folder):
            return (shard.expand(folder, in: currentDirectory) as NSString).appendingPathComponent(fileName(shard: shard))
        case .inPlace:
            let pipelinePath = BatchStoreList.absolute(pipeline, in: currentDirectory)
            let name = fileName(shard: shard).replacingOccurrences(
                of: ".etl-batch-manifest", with: ".etl-batch-manifest." + (pipelinePath as NSString).lastPathComponent)
            return ((pipelinePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
        }
    }

    /// Reads a manifest; a missing file is an empty one. Never fails on a truncated or
    /// damaged tail: that part is ignored (see `validLength`).
    public static func read(path: String) throws -> Contents {
        // Read as a file etl made: a planted link or FIFO is refused, not followed or waited on.
        let found: Data?
        do { found = try OwnFile.read(path, limit: 1 << 30) } catch {
            throw BatchUsageError("cannot read the batch manifest: \(error)")
        }
        guard let data = found else { return Contents(header: nil, entries: [], validLength: 0, damagedFrames: 0) }
        let contents = parse(Array(data))
        if let problem = contents.overBounds {
            throw BatchUsageError("the batch manifest \(path) is refused, not loaded: \(problem). No batch writes that; "
                                  + "pass --restart to start the batch over (the file is removed), or move it away")
        }
        return contents
    }

    /// Frame by frame. Where no readable frame starts (a damaged byte in a frame's header
    /// or body, an entry whose numbers no batch writes, or a write cut short), reading
    /// resumes at the next zstd magic number that starts one: a damaged frame loses only
    /// its own entry. What follows the last readable frame is a cut-off tail (`validLength`
    /// ends before it). `damagedFrames` counts each whole frame that did not read, and each
    /// stretch of bytes between readable frames that was no frame at all.
    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents(header: nil, entries: [], validLength: 0, damagedFrames: 0)
        let decoder = JSONDecoder()
        var offset = 0
        var skipping = false
        var total = 0
        while offset < bytes.count {
            let scan = ZstdFrameScanner.scan(bytes, at: offset)
            var json: [UInt8]?
            if case .complete(let length) = scan {
                do {
                    json = try Zstd.decompress(Array(bytes[offset..<offset + length]), limit: Bounds.line)
                } catch let failure as Zstd.Failure where failure.isOverLimit {
                    contents.overBounds = "its line at byte \(offset) is larger than \(Bounds.line >> 10) KiB decompressed"
                    return contents
                } catch {}
                total += json?.count ?? 0
                if total > Bounds.total {
                    contents.overBounds = "its lines hold more than \(Bounds.total >> 20) MiB decompressed (at byte \(offset))"
                    return contents
                }
            }
            if case .complete(let length) = scan, let json,
               let line = try? decoder.decode(Line.self, from: Data(json)), line.store?.isWithinRange ?? true {
                if let problem = line.store?.overBounds {
                    contents.overBounds = "its entry at byte \(offset) (\(line.store?.path ?? "")) has \(problem)"
                    return contents
                }
                if skipping { contents.damagedFrames += 1 }
                skipping = false
                if let header = line.batch, contents.header == nil { contents.header = header }
                if let inputs = line.inputs { contents.inputs[inputs.digest] = inputs }
                if let store = line.store { contents.entries.append(store) }
                offset += length
                contents.validLength = offset
                continue
            }
            skipping = true
            guard let next = ZstdFrameScanner.nextFrame(in: bytes, after: offset) else { break }
            if case .complete(let length) = scan, offset + length == next {
                // A whole frame, its end where the next one starts, that did not read.
                contents.damagedFrames += 1
                skipping = false
            }
            offset = next
        }
        return contents
    }

    /// Opens (or creates) the manifest to append to. With `restart`, an existing one is
    /// removed first. An existing manifest of another batch (pipeline, output or shard)
    /// is refused.
    public init(path: String, header: Header, restart: Bool) throws {
        self.path = path
        let fm = FileManager.default
        if restart { try? fm.removeItem(atPath: path) }
        var contents = try BatchManifest.read(path: path)
        if let existing = contents.header, !existing.sameBatch(as: header) {
            throw BatchUsageError("the batch manifest \(path) belongs to another batch (pipeline \(existing.pipeline), \(existing.output), shard \(existing.shard)); "
                                  + "this one is pipeline \(header.pipeline), \(header.output), shard \(header.shard). "
                                  + "Pass --restart to start a new batch there (its record is lost), or use another --out / --manifest")
        }
        let folder = (path as NSString).deletingLastPathComponent
        try? fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fd: Int32
        do { fd = try OwnFile.open(path, flags: O_WRONLY | O_CREAT | O_APPEND) } catch {
            throw BatchUsageError("cannot open the batch manifest: \(error)")
        }
        descriptor = fd
        // Two batches on one archive share the manifest: each append, and this repair, is
        // made under an exclusive lock, so a frame another batch is writing is never
        // mistaken for one a kill left half-written. Read again under the lock.
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        contents = try BatchManifest.read(path: path)
        // Cut off a frame a kill left half-written, so new entries follow whole ones.
        var info = stat()
        if fstat(fd, &info) == 0, Int(info.st_size) > contents.validLength {
            guard ftruncate(fd, off_t(contents.validLength)) == 0 else {
                close(fd)
                throw BatchUsageError("cannot repair the batch manifest \(path): \(String(cString: strerror(errno)))")
            }
        }
        self.contents = contents
        if contents.header == nil {
            // A new file (or one whose header was lost: its entries are kept).
            try write(Line(batch: header, store: nil))
            try sync(through: written)
            contents.header = header
            self.contents = contents
            _ = fsyncFolder(folder)
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends one store's entry; `durable`: fsynced before returning. Returns the entry's
    /// line number, for `sync(through:)`.
    ///
    /// A store's `started` entry must be durable before its result is put in place: it is
    /// what tells a rerun after a crash that a result it finds was installed by this batch.
    /// `etl batch --out` appends it without waiting, has it synced in the background
    /// (`syncInBackground`) while the store is migrated, and waits for that before the
    /// rename (`RunOptions.beforeInstall`); in place, where the batch moves the store's files
    /// itself, it is appended durable. Its outcome need not be (`Batch.process`): lost, it
    /// leaves `started` the store's latest entry, which the rerun resolves from the store's
    /// files (as after a kill between the store's end and its outcome's entry); every later
    /// sync, and the batch's end (`sync`), makes it durable with them, the file being synced
    /// whole.
    @discardableResult
    public func append(_ result: BatchStoreResult, durable: Bool = true) throws -> Int {
        let line: Int = try lock.withLock {
            let result = result.bounded
            try write(Line(batch: nil, store: result))
            contents.entries.append(result)
            return written
        }
        if durable { try sync(through: line) }
        return line
    }

    /// Records `inputs` (once per digest), so that entries naming their digest can be
    /// compared with a later batch's inputs.
    public func record(_ inputs: BatchInputs) throws {
        lock.lock()
        defer { lock.unlock() }
        let digest = inputs.digest
        guard contents.inputs[digest] == nil else { return }
        // Not synced on its own: the first store's `started` entry after it syncs the file whole.
        try write(Line(batch: nil, store: nil, inputs: inputs))
        contents.inputs[digest] = inputs
    }

    /// fsyncs every entry appended so far (the batch's end).
    public func sync() throws {
        try sync(through: lock.withLock { written })
    }

    /// Returns once the lines up to `line` are durable: at once when a sync since covered
    /// them, else after one — the one under way (another thread's, which may cover them
    /// too), or one of its own. The stores of a batch share their syncs this way, and the
    /// fsync runs outside the lock that appends, so no job waits for another's disk.
    public func sync(through line: Int) throws {
        syncing.lock()
        defer { syncing.unlock() }
        while synced < line {
            if syncInProgress {
                syncing.wait()
                continue
            }
            syncInProgress = true
            let target = lock.withLock { written }
            syncing.unlock()
            let failure = fsync(descriptor) == 0 ? nil : String(cString: strerror(errno))
            syncing.lock()
            syncInProgress = false
            syncing.broadcast()
            if let failure { throw BatchIOError("cannot sync the batch manifest \(path): \(failure)") }
            synced = max(synced, target)
            syncs += 1
        }
    }

    /// Has the lines up to `line` synced by the manifest's syncing thread, started on first
    /// use; a failure there is met again by the `sync(through:)` that waits for the line.
    /// (Its own thread: the system's shared queues start theirs too late to overlap a
    /// store's work.)
    public func syncInBackground(through line: Int) {
        syncing.lock()
        defer { syncing.unlock() }
        requested = max(requested, line)
        if !syncerStarted {
            syncerStarted = true
            let thread = Thread { [weak self] in self?.runSyncer() }
            thread.name = "etl-manifest-sync"
            thread.start()
        }
        syncing.broadcast()
    }

    /// The syncing thread: syncs what was requested, until the manifest is closed.
    private func runSyncer() {
        syncing.lock()
        while !closing {
            if requested > synced, !syncInProgress {
                let line = requested
                syncing.unlock()
                let failed = (try? sync(through: line)) == nil
                syncing.lock()
                // Not tried again here: the store that waits for the line syncs, and fails, itself.
                if failed { requested = synced }
            } else {
                syncing.wait()
            }
        }
        syncing.unlock()
    }

    /// Ends the syncing thread (the batch's end, after its last `sync`).
    public func stopSyncing() {
        syncing.lock()
        closing = true
        syncing.broadcast()
        syncing.unlock()
    }

    /// Lines written, and lines known durable (`sync(through:)`).
    private var written = 0
    /// Compresses each line's frame (under `lock`, in `write`).
    private var compressor: Zstd.Compressor?
    private var synced = 0
    private var syncInProgress = false
    private let syncing = NSCondition()
    /// What `syncInBackground` asked for, and whether its thread runs or must end.
    private var requested = 0
    private var syncerStarted = false
    private var closing = false

    /// fsyncs of the file so far (tests count them).
    private(set) var syncs = 0

    /// Writes `line` (with `lock` held).
    private func write(_ line: Line) throws {
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        // A store's line (every store writes two) by hand, the same bytes (`BatchManifestEntryJSON`).
        var json: [UInt8]
        if line.batch == nil, line.inputs == nil, let store = line.store, let written = BatchManifestEntryJSON.line(store) {
            json = written
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            json = Array(try encoder.encode(line))
        }
        json.append(UInt8(ascii: "\n"))
        if compressor == nil { compressor = try Zstd.Compressor() }
        let frame = try compressor!.compress(json)
        var done = 0
        while done < frame.count {
            let n = frame[done...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw BatchIOError("cannot write the batch manifest \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        written += 1
    }

    private func fsyncFolder(_ folder: String) -> Bool {
        let fd = open(folder, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fsync(fd) == 0
    }
}

/// A batch's own file (manifest, report, metrics) cannot be written: the batch stops.
public struct BatchIOError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
