import Foundation
import ETLStore

/// Opens a source store read-only, with errors a user can act on.
///
/// Every source is treated as hostile: the connection is hardened (`Database.harden`:
/// defensive mode, no extensions, no views or triggers, untrusted schema, cell size
/// checks, no mmap, limits on value and statement sizes), and by default SQLite's quick
/// check must pass before a row is read.
///
/// A store with a `-wal` file is read through SQLite, which applies the WAL: its
/// un-checkpointed transactions are read too. The WAL's frames are checked first
/// (`WALCheck`): one that fails its checksum refuses the store, where SQLite would read
/// less data without a word. A `-shm` is only SQLite's index of the WAL: SQLite checks it
/// against the WAL and rebuilds it when they disagree, so it is never trusted for what the
/// WAL holds. A read-only connection never writes the
/// store or its WAL; SQLite may create the `-shm` index (and an empty `-wal`) beside a store
/// in WAL mode to read it, and these are removed again when this run created them, so
/// nothing is left behind. A small store with WAL content and no `-shm` is read from an
/// image in memory instead (`SourceWALImage`): its pages with the WAL's committed frames
/// applied, which the run's connections share while this `SourceStore` lives, and nothing
/// is made beside it.
public final class SourceStore: @unchecked Sendable {
    public let path: String
    public let database: Database
    /// Files SQLite created beside the store for this run.
    private let created: [String]
    /// Where `created` is recorded (`SourceCompanionRecord`).
    private let companionRecord: String
    /// The store's image the run's connections read while this lives (`SourceWALImage`).
    private let imageRegistration: SourceImage.Registration?
    /// The reason of a source store that does not exist (`etl` exits 2 for it: nothing was read).
    public static let noSuchFile = "no such file"

    /// Opens `path` read-only and hardened (see `Hardening`: the file is treated as
    /// hostile), checks that it is a SQLite database, and with `check` runs SQLite's quick
    /// check over it (one full read of the file).
    ///
    /// - Parameters:
    ///   - check: run `PRAGMA quick_check` and refuse a damaged store, naming what is
    ///     damaged. Costs one read of the whole file; `etl run --no-check` turns it off.
    ///   - busyTimeout: milliseconds to wait while another program holds a lock on the
    ///     store (a writer in the middle of a transaction) before giving up.
    /// - Throws: `MigrationError.badSource` naming the path and what is wrong.
    public init(path: String, check: Bool = true, busyTimeout: Int32 = 5_000) throws {
        self.path = path
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MigrationError.badSource(path: path, reason: SourceStore.noSuchFile)
        }
        guard !isDirectory.boolValue else { throw MigrationError.badSource(path: path, reason: "is a folder, not a store file") }
        // Refused at once: SQLite would wait forever on a FIFO's writer.
        if let kind = OwnFile.specialKind(at: path) {
            throw MigrationError.badSource(path: path, reason: "is \(kind), not a store file: a store is a regular file")
        }
        // SQLite reads an empty file as an empty database; no store is ever 0 bytes long.
        if FileStatus.of(path)?.size == 0 {
            throw MigrationError.badSource(path: path, reason: "is an empty file (0 bytes), not a SQLite store")
        }
        // A FIFO (or anything but a file) named like SQLite's own files beside it: refused
        // before anything opens it, which would wait forever for a writer.
        do { try StoreCompanions.check(path) } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: error.message)
        }
        // What a killed run's SQLite left beside the store, known by the record it kept.
        let record = SourceCompanionRecord.path(of: path)
        companionRecord = record
        SourceCompanionRecord.removeLeftovers(of: path, record: record)
        let companions = [path + "-wal", path + "-shm"]
        let existing = companions.filter { fm.fileExists(atPath: $0) }
        // Before SQLite reads it: SQLite would read a WAL with a damaged frame as less data.
        // A small store's committed frames are kept for its image (`SourceWALImage`).
        let committed = SourceWALImage.wanted(store: path) ? WALCheck.CommittedPages() : nil
        let before = committed == nil ? (nil, nil) : (FileStatus.of(path), FileStatus.of(path + "-wal"))
        do { try WALCheck.check(path + "-wal", pages: committed) } catch let damaged as WALCheck.Damaged {
            throw MigrationError.badSource(path: path, reason: "has a damaged -wal: \(damaged). Nothing was read. "
                + "Restore the store and its -wal from a backup; to migrate what the store holds without the WAL's transactions, move the -wal away")
        }
        imageRegistration = committed.flatMap { SourceWALImage.make(store: path, committed: $0, before: before) }
            .map(SourceImage.register)
        let size = { Int(FileStatus.size(of: path)) }
        var opened: Database?
        do {
            let database = try Database(path: path, mode: .readOnly, busyTimeout: busyTimeout, hardened: true)
            opened = database
            try database.checkReadable()
            if check {
                let problems = try database.quickCheck(limit: 10)
                if !problems.isEmpty {
                    throw MigrationError.badSource(path: path, reason: SourceStore.damaged(problems, size: size()))
                }
            }
            self.database = database
        } catch {
            opened?.close()
            for file in companions where !existing.contains(file) { try? fm.removeItem(atPath: file) }
            guard let error = error as? StoreError else { throw error }
            throw MigrationError.badSource(path: path, reason: SourceStore.reason(for: error, size: size(), busyTimeout: busyTimeout))
        }
        created = companions.filter { !existing.contains($0) && fm.fileExists(atPath: $0) }
        if !created.isEmpty { SourceCompanionRecord.record(created, in: record) }
    }

    /// What a SQLite failure on opening or checking a source means for the user.
    static func reason(for error: StoreError, size: Int, busyTimeout: Int32) -> String {
        switch error.code {
        case SQLiteCode.notADatabase:
            return "is not a SQLite database, or its header is damaged (\(size) bytes): \(error.message)"
        case SQLiteCode.corrupt:
            return "is damaged or truncated (\(size) bytes): \(error.message). Restore it from a backup, or salvage its rows with `sqlite3 FILE .recover` and migrate the result"
        case SQLiteCode.busy, SQLiteCode.locked:
            return "is locked by another program (waited \(seconds(busyTimeout)) s): "
                + "a program is writing it. Close that program, or copy the store when it is idle and migrate the copy"
        case SQLiteCode.ioError:
            return "cannot be read (\(size) bytes): \(error.message)"
        case SQLiteCode.cantOpen:
            return "cannot be opened: \(error.message)"
        default:
            if error.message.contains("unsupported file format") {
                return "uses a file format SQLite \(Database.sqliteVersion) cannot read (\(error.message)): it was written by a newer SQLite, or its header is damaged"
            }
            return "cannot be read as a SQLite store: \(error.message) (SQLite code \(error.code))"
        }
    }

    /// Refuses a source table whose key column is not its rowid (`INTEGER PRIMARY KEY`).
    ///
    /// The create stage reads a table by keyset scan (`key > ? ORDER BY key LIMIT n`),
    /// which needs keys that are integers, unique and never null: what SQLite guarantees
    /// for a rowid column only. A store whose schema declares the key column otherwise (a
    /// schema rewritten by hand, or a store of another program) could have real, repeated
    /// or null keys, and the scan would then repeat rows, or never end. Call it for every
    /// entity table the first step reads, after checking that the table exists.
    ///
    /// - Throws: `MigrationError.badSource` naming the table and the column.
    public static func checkKey(_ database: Database, path: String, table: String, keyColumn: String) throws {
        let rowID: String?
        do { rowID = try database.rowIDColumn(ofTable: table) } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: "cannot read the schema of table \(table): \(error.message)")
        }
        guard let rowID, rowID.caseInsensitiveCompare(keyColumn) == .orderedSame else {
            let found = rowID.map { "its INTEGER PRIMARY KEY is \($0)" } ?? "it has no INTEGER PRIMARY KEY"
            throw MigrationError.badSource(path: path, reason: "table \(table)'s key column \(keyColumn) is not its INTEGER PRIMARY KEY (\(found)), "
                + "so its keys need not be unique integers and it cannot be read in key order. Is it a store of this model and layout, or was its schema changed by hand?")
        }
    }

    /// Milliseconds as seconds, without trailing zeros: 5000 → "5", 200 → "0.2".
    static func seconds(_ milliseconds: Int32) -> String {
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The reason for a store that fails SQLite's quick check.
    static func damaged(_ problems: [String], size: Int) -> String {
        let shown = problems.prefix(10).map { "\"\($0)\"" }.joined(separator: "; ")
        return "is damaged or truncated (\(size) bytes): SQLite's quick_check found \(problems.count == 1 ? "a problem" : "problems"): \(shown). "
            + "Restore it from a backup, or salvage its rows with `sqlite3 FILE .recover` and migrate the result"
    }

    /// Whether a `-wal` file with content sits beside the store.
    public var hasWAL: Bool {
        FileStatus.size(of: path + "-wal") > 0
    }

    deinit {
        database.close()
        for file in created {
            // Only an empty WAL is ours to remove: one with content would hold transactions.
            let size = FileStatus.size(of: file)
            if file.hasSuffix("-shm") || size == 0 { try? FileManager.default.removeItem(atPath: file) }
        }
        if !created.isEmpty { SourceCompanionRecord.forget(companionRecord) }
    }
}
