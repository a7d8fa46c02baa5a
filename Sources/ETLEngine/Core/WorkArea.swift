import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

/// The files a run works in. All of them sit beside the destination and are named after
/// it, so they never leave its folder and a second look at the folder explains them:
///
/// - `books-v3.sqlite.etl-tmp`: the destination being built (renamed into place at the end);
/// - `books-v3.sqlite.etl-step1.tmp`: the store a step before the last produces;
/// - `books-v3.sqlite.etl-work`: the current step's `WorkDatabase` (associations, uniqueBy keys, rejects);
/// - `books-v3.sqlite.etl-work-keys`, `….etl-work-links`: uniqueBy keys and links a step
///   pushed down into SQLite works out ahead, on a second connection (`AheadWork`);
/// - `books-v3.sqlite.etl-tmp.external`: the external storage files of a store being built;
/// - `books-v3.sqlite.etl-backup.external`: with a backup, the old store's external storage
///   files, gathered before the new ones join them in its folder.
public struct WorkArea: Sendable {
    let destination: String

    var temporaryDestination: String { destination + ".etl-tmp" }
    var work: String { destination + ".etl-work" }
    var aheadFiles: (keys: String, links: String) { Self.aheadFiles(ofWork: work) }

    /// The files `AheadWork` writes beside the work database `work`.
    static func aheadFiles(ofWork work: String) -> (keys: String, links: String) { (work + "-keys", work + "-links") }
    var backup: String { destination + ".bak" }
    var backupExternal: String { destination + ".etl-backup.external" }

    /// The rejected rows of the run (`RejectFile`), kept beside the destination.
    var rejects: String { destination + ".rejects.jsonl.zst" }
    /// Step `step`'s (0-based) rejected rows, until the run joins them into `rejects`.
    func rejects(ofStep step: Int) -> String { rejects + ".step\(step + 1)" }

    /// The store step `index` (0-based) writes.
    func output(ofStep index: Int, stepCount: Int) -> String {
        index == stepCount - 1 ? temporaryDestination : destination + ".etl-step\(index + 1).tmp"
    }

    /// Every file a run may leave behind, with SQLite's journals.
    func allFiles(stepCount: Int) -> [String] {
        let outputs = (0..<stepCount).map { output(ofStep: $0, stepCount: stepCount) }
        let stores = outputs + [work, aheadFiles.keys, aheadFiles.links]
        return stores.flatMap { [$0, $0 + "-journal", $0 + "-wal", $0 + "-shm"] }
            + outputs.map { $0 + ".external" } + [backupExternal, backupExternal + ".etl-partial"]
            + (0..<stepCount).map(rejects(ofStep:))
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

    /// Removes the work files a run on `destination` left when it was killed after installing it.
    public static func removeLeftovers(destination: String, stepCount: Int) {
        WorkArea(destination: destination).removeAll(stepCount: stepCount)
    }

    func removeAll(stepCount: Int) {
        for file in allFiles(stepCount: stepCount) { Self.remove(file) }
    }

    static func remove(store path: String) {
        for suffix in ["", "-journal", "-wal", "-shm", ".external"] { remove(path + suffix) }
    }

    /// Readies the database file at `path` (the work database of the step before) to be
    /// rewritten whole in place (`EmptyStoreImage.write`) rather than removed and made
    /// again, which would cost two new files a step (it and its journal).
    ///
    /// What could bring back its old content goes: a journal with content (a hot journal
    /// would be rolled back into the new bytes), any WAL or shared memory. An empty
    /// journal stays: SQLite reads a 0-byte journal as none, and writes its next
    /// transaction's journal into it (`journal_mode = TRUNCATE` leaves it so). Anything
    /// but a regular file of one link goes, as `remove(store:)` would remove it.
    static func prepareForReuse(store path: String) {
        if !isOwnFile(path) { remove(path) }
        if !isOwnFile(path + "-journal", empty: true) { remove(path + "-journal") }
        for suffix in ["-wal", "-shm", ".external"] { remove(path + suffix) }
    }

    private static func isOwnFile(_ path: String, empty: Bool = false) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1 && (!empty || info.st_size == 0)
    }

    /// Removes the file, or the folder with what it holds, at `path` if there is one. A
    /// run tries every name it may have used, and most are nothing: looked at first
    /// (`lstat`), as `unlink` takes the folder's lock even for a name that is not there,
    /// which the other jobs of a batch, in the same folder, then wait for. Then a plain
    /// `unlink`: the names are files, or nothing.
    static func remove(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard unlink(path) != 0, errno != ENOENT else { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
