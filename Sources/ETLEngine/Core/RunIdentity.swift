import Foundation
import ETLPipeline
import ETLExpression
import ETLStore

/// What a checkpoint belongs to. A resume is refused when any of it changed, because
/// continuing would mix two different runs in one store.
public struct RunIdentity: Codable, Sendable, Equatable {
    public var toolVersion: String
    /// Fingerprint of the pipeline file and every model file it names.
    public var pipeline: String
    public var pipelineFile: String
    public var source: SourceIdentity
    /// Model versions, source first.
    public var models: [String]
    public var destination: String
    /// Whether declarative steps may run inside SQLite: a pushed-down step keeps no
    /// associations, so the two ways cannot continue each other's work.
    public var pushdown: Bool = true

    /// Each difference as a sentence, for the refusal message.
    public func differences(from other: RunIdentity) -> [String] {
        var list: [String] = []
        if toolVersion != other.toolVersion { list.append("etl changed from version \(toolVersion) to \(other.toolVersion)") }
        if pipeline != other.pipeline { list.append("the pipeline \(other.pipelineFile) or one of its model files was edited") }
        if models != other.models { list.append("the model versions changed from \(models.joined(separator: " → ")) to \(other.models.joined(separator: " → "))") }
        list += source.differences(from: other.source)
        if destination != other.destination { list.append("the destination changed from \(destination) to \(other.destination)") }
        if pushdown != other.pushdown {
            list.append("the run was started \(pushdown ? "without" : "with") --no-pushdown; give the same options to continue it")
        }
        return list
    }
}

/// A source store as it was when the run started: a replaced or modified store is noticed,
/// by its size and time and by what SQLite itself changes on every write: the header's
/// file change counter (offset 24; every commit of a store in rollback mode), its schema
/// cookie (offset 40; every change of schema), and its `-wal`'s salts and checkpoint
/// sequence (every restart of the log) and frames (every commit in WAL mode). A program
/// that keeps size and time (`touch -r`) still changes these.
public struct SourceIdentity: Codable, Sendable, Equatable {
    public var path: String
    public var size: Int64
    public var modified: Double
    /// Fingerprint of the first 64 KiB (SQLite's header with its change counter, and the schema).
    public var header: String
    /// Size of the `-wal` file beside it, if any.
    public var walSize: Int64?
    /// The header's file change counter and schema cookie; nil in a checkpoint of an etl
    /// that did not record them (such a checkpoint is not continued: `differences`).
    public var changeCounter: UInt32?
    public var schemaCookie: UInt32?
    /// The `-wal`'s header: its two salts (as one number) and checkpoint sequence; and its
    /// whole frames. Nil without a `-wal` header.
    public var walSalts: UInt64?
    public var walCheckpoints: UInt32?
    public var walFrames: Int64?

    public static func of(_ path: String) throws -> SourceIdentity {
        var (identity, first) = try unhashed(path)
        var hash = FNV1a()
        hash.add(first)
        identity.header = hash.hex
        return identity
    }

    /// The identity without the fingerprint of the first 64 KiB (`header` empty), and those
    /// bytes: what compares a source with itself within one run (`SourceSnapshot`).
    static func unhashed(_ path: String) throws -> (SourceIdentity, first: Data) {
        guard let file = FileStatus.of(path) else {
            // No status: Foundation's call says why, in the words it always did.
            _ = try FileManager.default.attributesOfItem(atPath: path)
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let first = firstBytes(path)
        func word(_ at: Int) -> UInt32 {
            first.count >= at + 4 ? first[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } : 0
        }
        let wal = FileStatus.of(path + "-wal")?.size
        var identity = SourceIdentity(path: path, size: file.size, modified: file.modified, header: "", walSize: wal)
        identity.changeCounter = word(24)
        identity.schemaCookie = word(40)
        if let stamp = WALCheck.headerStamp(path + "-wal"), let walSize = wal {
            identity.walSalts = stamp.salts
            identity.walCheckpoints = stamp.checkpointSequence
            identity.walFrames = stamp.pageSize > 0 ? max(0, walSize - 32) / Int64(24 + stamp.pageSize) : 0
        }
        return (identity, first)
    }

    /// The first 64 KiB of the file at `path` (fewer when it is shorter; none when it cannot be read).
    /// In one read where the system gives them so (Foundation's `FileHandle` read them 4 KiB
    /// at a time: sixteen reads a store, twice a run).
    static func firstBytes(_ path: String) -> Data {
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard fd >= 0 else { return Data() }
        defer { Platform.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return Data() }
        return Data(OwnFile.read(fd, upTo: 65_536))
    }

    /// What differs from `other` (the source now), each in words.
    func differences(from other: SourceIdentity) -> [String] {
        if path != other.path { return ["the source changed from \(path) to \(other.path)"] }
        guard changeCounter != nil, schemaCookie != nil else {
            return ["the checkpoint was written by an etl that did not record what SQLite changes on every write of the source "
                + "(its change counter, schema cookie and -wal salts), so it cannot tell whether \(path) changed since: run again with --restart"]
        }
        var changed: [String] = []
        if size != other.size { changed.append("its size (\(size) → \(other.size) bytes)") }
        if modified != other.modified { changed.append("its modification time") }
        if changeCounter != other.changeCounter { changed.append("its header's change counter (\(changeCounter!) → \(other.changeCounter.map(String.init) ?? "none"))") }
        if schemaCookie != other.schemaCookie { changed.append("its schema cookie (\(schemaCookie!) → \(other.schemaCookie.map(String.init) ?? "none"))") }
        if header != other.header, changeCounter == other.changeCounter, schemaCookie == other.schemaCookie { changed.append("its first 64 KiB") }
        if walSize != other.walSize { changed.append("its -wal's size (\(walSize.map { "\($0) bytes" } ?? "none") → \(other.walSize.map { "\($0) bytes" } ?? "none"))") }
        if walSalts != other.walSalts || walCheckpoints != other.walCheckpoints { changed.append("its -wal's salts (the log was restarted)") }
        if walFrames != other.walFrames, walSize == other.walSize { changed.append("its -wal's frames") }
        guard !changed.isEmpty else { return [] }
        return ["the source store \(path) was modified or replaced since the run started: \(changed.joined(separator: ", ")) changed"]
    }
}

extension RunIdentity {
    /// The identity of running `plan` now.
    static func of(_ plan: Plan, pushdown: Bool) throws -> RunIdentity {
        // A kept plan's pipeline and model files were read once, when it was made: their
        // fingerprint is worked out once too (`PlanMemo`), by its first run, not per store.
        let pipeline = plan.memo?.value(PipelineFingerprintKey()) { pipelineFingerprint(plan) } ?? pipelineFingerprint(plan)
        return RunIdentity(toolVersion: ETLVersion.current, pipeline: pipeline, pipelineFile: plan.spec.file,
                           source: try SourceIdentity.of(plan.sourcePath),
                           models: [plan.sourceVersion] + plan.steps.map(\.destinationModel.version),
                           destination: plan.destinationPath, pushdown: pushdown)
    }

    /// A plan's `pipelineFingerprint`, kept in its memo: one per plan.
    struct PipelineFingerprintKey: PlanMemoKey {
        typealias Value = String
    }

    /// Fingerprint of the pipeline file and every model file, as they are now.
    static func pipelineFingerprint(_ plan: Plan) -> String {
        var hash = FNV1a()
        hash.add(plan.spec.bytes)
        for path in plan.modelFiles {
            hash.add(Array(path.utf8))
            hash.add(FileManager.default.contents(atPath: path) ?? Data())
        }
        return hash.hex
    }
}
