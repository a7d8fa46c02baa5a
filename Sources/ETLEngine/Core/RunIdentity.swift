import Foundation
import ETLPipeline

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

/// A source store as it was when the run started: a replaced or modified store is noticed.
public struct SourceIdentity: Codable, Sendable, Equatable {
    public var path: String
    public var size: Int64
    public var modified: Double
    /// Fingerprint of the first 64 KiB (SQLite's header with its change counter, and the schema).
    public var header: String
    /// Size of the `-wal` file beside it, if any.
    public var walSize: Int64?

    public static func of(_ path: String) throws -> SourceIdentity {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        var hash = FNV1a()
        if let handle = FileHandle(forReadingAtPath: path) {
            defer { try? handle.close() }
            hash.add(handle.readData(ofLength: 65_536))
        }
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber
        return SourceIdentity(path: path, size: size, modified: modified, header: hash.hex, walSize: wal?.int64Value)
    }

    func differences(from other: SourceIdentity) -> [String] {
        if path != other.path { return ["the source changed from \(path) to \(other.path)"] }
        if size != other.size || header != other.header || modified != other.modified || walSize != other.walSize {
            return ["the source store \(path) was modified or replaced since the run started (size \(size) → \(other.size) bytes)"]
        }
        return []
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
