import Foundation
import ETLStore

/// Opens a source store read-only, with errors a user can act on.
///
/// A store with a `-wal` file is read through SQLite, which applies the WAL: its
/// un-checkpointed transactions are read too. A read-only connection never writes the
/// store or its WAL; SQLite may create the `-shm` index (and an empty `-wal`) beside a store
/// in WAL mode to read it, and these are removed again when this run created them, so
/// nothing is left behind.
public final class SourceStore: @unchecked Sendable {
    public let path: String
    public let database: Database
    /// Files SQLite created beside the store for this run.
    private let created: [String]

    public init(path: String) throws {
        self.path = path
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MigrationError.badSource(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MigrationError.badSource(path: path, reason: "is a folder, not a store file") }
        let companions = [path + "-wal", path + "-shm"]
        let existing = companions.filter { fm.fileExists(atPath: $0) }
        do {
            database = try Database(path: path, mode: .readOnly)
            try database.checkReadable()
        } catch let error as StoreError {
            for file in companions where !existing.contains(file) { try? fm.removeItem(atPath: file) }
            let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let reason: String
            switch error.code {
            case SQLiteCode.notADatabase: reason = "is not a SQLite database (\(size) bytes)"
            case SQLiteCode.corrupt: reason = "is damaged or truncated (\(size) bytes): \(error.message)"
            default: reason = error.message
            }
            throw MigrationError.badSource(path: path, reason: reason)
        }
        created = companions.filter { !existing.contains($0) && fm.fileExists(atPath: $0) }
    }

    /// Whether a `-wal` file with content sits beside the store.
    public var hasWAL: Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0 > 0
    }

    deinit {
        database.close()
        for file in created {
            // Only an empty WAL is ours to remove: one with content would hold transactions.
            let size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
            if file.hasSuffix("-shm") || size == 0 { try? FileManager.default.removeItem(atPath: file) }
        }
    }
}
