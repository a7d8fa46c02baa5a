import Foundation
import ETL

/// Where a store of a batch stands.
public enum BatchStatus: String, Sendable, Codable, CaseIterable {
    /// Migrated to the target version (and, in place, replaced).
    case done
    /// Already at the target version: nothing written ("up to date").
    case skipped
    /// Could not be migrated; `error` says why. The batch goes on with the other stores.
    case failed
    /// Stopped by SIGINT/SIGTERM in the middle: the next run resumes it from its checkpoint.
    case interrupted
    /// Not started (the batch was stopped first).
    case pending
    /// Being migrated (in the manifest only: a store that never got a later entry was
    /// cut short by a kill, and is resumed like an interrupted one).
    case started
}

/// What happened to one store: a line of the batch manifest and an entry of the report.
public struct BatchStoreResult: Sendable, Codable, Equatable {
    /// Relative to the batch's base folder.
    public var path: String
    /// The store's absolute path.
    public var store: String
    /// The migrated store (the store itself when in place).
    public var output: String?
    public var status: BatchStatus
    public var fromVersion: String?
    public var toVersion: String?
    /// Rows written per destination entity by the last step (the result's content).
    public var rows: [String: Int]
    /// What the pipeline said to drop, per `"step: Entity.property"` (or `"step: Entity"`):
    /// the non-null values (or rows) left behind. Nil when nothing held data.
    public var dropped: [String: Int]?
    /// Source rows rejected, and values made null on purpose (`orNull`, `"unreadable":
    /// "null"`), over every mapping of every step; nil when none.
    public var rejected: Int?
    public var nulled: Int?
    public var seconds: Double
    /// Done stores: where `seconds` went (plan, check, copy, validate, rename).
    public var cost: BatchStoreCost?
    public var error: String?
    /// In place: where the original store was kept.
    public var backup: String?
    public var notes: [String]
    /// When this entry was written, seconds since 1970.
    public var time: Double
    /// Manifest only, with `.started`: whether the output existed before this run of the store.
    public var outputExisted: Bool?
    /// The source as this run of the store found it before reading it (`BatchSourceIdentity`):
    /// a rerun that finds it changed migrates it again.
    public var source: BatchSourceIdentity?
    /// The digest of the inputs the outcome was made with (`BatchInputs`, recorded in the
    /// manifest by that digest): a rerun whose inputs differ does the store again.
    public var inputs: String?
    /// Done stores with `--out`: the result as this run installed it. A rerun trusts the
    /// entry only while the result is there and the same (size, time, pages).
    public var result: BatchSourceIdentity?
    /// `--report-stale`: what changed since the outcome was made; the store was left as it is.
    public var stale: [String]?

    public init(store: BatchStore, status: BatchStatus, output: String? = nil) {
        path = store.relativePath
        self.store = store.path
        self.output = output
        self.status = status
        rows = [:]
        seconds = 0
        notes = []
        time = Date().timeIntervalSince1970
    }

    /// All rows written.
    public var totalRows: Int { rows.values.reduce(0, +) }

    /// The most rows an entry may count (2^40, far beyond any store): summed over the
    /// entries a manifest can hold (it is read up to 1 GiB), counts stay below overflowing.
    static let maximumRows = 1 << 40

    /// What of this entry is over `BatchManifest.Bounds`, or nil.
    var overBounds: String? {
        if notes.count > BatchManifest.Bounds.notes { return "\(notes.count) notes (at most \(BatchManifest.Bounds.notes))" }
        if let long = (notes + [error ?? ""] + (stale ?? [])).first(where: { $0.utf8.count > BatchManifest.Bounds.note }) {
            return "a note of \(long.utf8.count) bytes (at most \(BatchManifest.Bounds.note))"
        }
        return nil
    }

    /// The entry within `BatchManifest.Bounds`: notes and error cut (saying so), so that
    /// what a batch writes it always reads back.
    var bounded: BatchStoreResult {
        func cut(_ text: String) -> String {
            guard text.utf8.count > BatchManifest.Bounds.note else { return text }
            let marker = " … (cut)"
            var kept = Substring(text)
            while kept.utf8.count + marker.utf8.count > BatchManifest.Bounds.note { kept = kept.dropLast(max(1, (kept.utf8.count - BatchManifest.Bounds.note) / 2)) }
            return kept + marker
        }
        var entry = self
        if entry.notes.count > BatchManifest.Bounds.notes {
            let left = entry.notes.count - (BatchManifest.Bounds.notes - 1)
            entry.notes = Array(entry.notes.prefix(BatchManifest.Bounds.notes - 1)) + ["… and \(left) more notes"]
        }
        entry.notes = entry.notes.map(cut)
        entry.error = entry.error.map(cut)
        entry.stale = entry.stale.map { Array($0.prefix(BatchManifest.Bounds.notes)).map(cut) }
        return entry
    }

    /// Whether every number is one a batch could have written: counts not negative and
    /// together at most `maximumRows`, times finite and not negative. A manifest entry that
    /// is not is read as a damaged one (it is a file anyone could have written), never summed.
    var isWithinRange: Bool {
        let times = [seconds, time] + (cost.map { [$0.open, $0.plan, $0.check, $0.copy, $0.validate, $0.rename] } ?? [])
        var total = 0
        for count in [rejected ?? 0, nulled ?? 0] where !(0...Self.maximumRows).contains(count) { return false }
        for count in rows.values {
            guard (0...Self.maximumRows).contains(count) else { return false }
            total += count
            guard total <= Self.maximumRows else { return false }
        }
        return times.allSatisfy { $0.isFinite && $0 >= 0 && $0 < 1e12 }
    }
}
