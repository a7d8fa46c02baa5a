import Foundation
import ETLStore
import ETLModel

/// The files a run works in. All of them sit beside the destination and are named after
/// it, so they never leave its folder and a second look at the folder explains them:
///
/// - `books-v3.sqlite.etl-tmp`: the destination being built (renamed into place at the end);
/// - `books-v3.sqlite.etl-step1.tmp`: the store a step before the last produces;
/// - `books-v3.sqlite.etl-work`: associations and uniqueBy keys of the current step;
/// - `books-v3.sqlite.etl-tmp.external`: the external storage files of a store being built;
/// - `books-v3.sqlite.etl-backup.external`: with a backup, the old store's external storage
///   files, gathered before the new ones join them in its folder.
public struct WorkArea {
    let destination: String

    var temporaryDestination: String { destination + ".etl-tmp" }
    var work: String { destination + ".etl-work" }
    var backup: String { destination + ".bak" }
    var backupExternal: String { destination + ".etl-backup.external" }

    /// The store step `index` (0-based) writes.
    func output(ofStep index: Int, stepCount: Int) -> String {
        index == stepCount - 1 ? temporaryDestination : destination + ".etl-step\(index + 1).tmp"
    }

    /// Every file a run may leave behind, with SQLite's journals.
    func allFiles(stepCount: Int) -> [String] {
        let outputs = (0..<stepCount).map { output(ofStep: $0, stepCount: stepCount) }
        let stores = outputs + [work]
        return stores.flatMap { [$0, $0 + "-journal", $0 + "-wal", $0 + "-shm"] }
            + outputs.map { $0 + ".external" } + [backupExternal, backupExternal + ".etl-partial"]
            + (0..<stepCount).map { RejectFile(destination: destination).stepFile($0) }
    }

    /// Where the store at `path` keeps externally stored binary values: Core Data's
    /// `.<Store>_SUPPORT/_EXTERNAL_DATA` for a user's store; `<path>.external` for a store
    /// a run is building (Core Data's name for `out.sqlite.etl-tmp` would be that of the
    /// backup `out.sqlite.bak`).
    /// `batch --in-place` reads a store through a hard link `STORE.etl-original`: its files
    /// are the store's.
    static func externalFolder(ofStore path: String) -> String {
        let isWork = path.hasSuffix(".etl-tmp") || (path.hasSuffix(".tmp") && path.contains(".etl-step"))
        if isWork { return path + ".external" }
        let original = ".etl-original"
        return ExternalBinaryStorage.folder(ofStore: path.hasSuffix(original) ? String(path.dropLast(original.count)) : path)
    }

    /// The work files of a run on `destination` that exist now.
    public static func existingFiles(destination: String, stepCount: Int) -> [String] {
        WorkArea(destination: destination).allFiles(stepCount: stepCount).filter { FileManager.default.fileExists(atPath: $0) }
    }

    func removeAll(stepCount: Int) {
        for file in allFiles(stepCount: stepCount) { try? FileManager.default.removeItem(atPath: file) }
    }

    static func remove(store path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try? FileManager.default.removeItem(atPath: path + ".external")
    }

    /// Creates the work database's tables in the connection's attached schema `work`.
    ///
    /// `association`: source row (and forEach item) → destination row, per mapping: Core
    /// Data's associateSourceInstance. On disk, so memory never grows with the store.
    /// `unique_key`: uniqueBy key → the destination row made for it, the first source row
    /// with that key (whose values the row has) and, pushed down, how many rows have it.
    /// `reject`: rejected source rows (JSON records), committed with their chunk.
    static let schema = """
        CREATE TABLE work.association (
            mapping INTEGER NOT NULL, destination INTEGER NOT NULL,
            source INTEGER NOT NULL, item INTEGER NOT NULL,
            PRIMARY KEY (mapping, destination, source, item)) WITHOUT ROWID;
        CREATE INDEX work.association_by_source ON association (mapping, source, destination);
        CREATE TABLE work.unique_key (
            mapping INTEGER NOT NULL, key BLOB NOT NULL, destination INTEGER NOT NULL, source INTEGER NOT NULL,
            rows INTEGER, PRIMARY KEY (mapping, key)) WITHOUT ROWID;
        CREATE TABLE work.reject (
            mapping INTEGER NOT NULL, source INTEGER NOT NULL, record TEXT NOT NULL);
        """

    /// `item` of an association without a forEach. A real item may have this key too: an
    /// association has an item exactly when its mapping has a forEach, never by its value.
    static let noItem = Int64.min

    /// The `mapping` of the associations of target `target`'s rows that an end-of-mapping
    /// hook made. They have no source row, and every source key is a key a store may hold
    /// (2⁶³−1 too), so they are told apart by mapping, not by a sentinel source key: no
    /// relate, lookup or rollback by source key ever meets them.
    static func endOfMappingAssociations(of target: Int) -> Int64 { -1 - Int64(target) }
}
