import Foundation
import ETLStore

/// Opens a source store read-only, with errors a user can act on.
///
/// A store with a `-wal` file is read through SQLite, which applies the WAL: its
/// un-checkpointed transactions are read too. A read-only connection never writes the
/// store or its WAL; SQLite may create the `-shm` index beside them to read the WAL, and
/// `close()` removes it again when this run created it, so nothing is left behind.
public final class SourceStore: @unchecked Sendable {
    public let path: String
    public let database: Database
    private let createdSharedMemory: Bool

    public init(path: String) throws {
        self.path = path
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MigrationError.badSource(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw MigrationError.badSource(path: path, reason: "is a folder, not a store file") }
        let shm = path + "-shm"
        let hadSharedMemory = fm.fileExists(atPath: shm)
        do {
            database = try Database(path: path, mode: .readOnly)
            try database.checkReadable()
        } catch let error as StoreError {
            if !hadSharedMemory { try? fm.removeItem(atPath: shm) }
            let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let reason: String
            switch error.code {
            case SQLiteCode.notADatabase: reason = "is not a SQLite database (\(size) bytes)"
            case SQLiteCode.corrupt: reason = "is damaged or truncated (\(size) bytes): \(error.message)"
            default: reason = error.message
            }
            throw MigrationError.badSource(path: path, reason: reason)
        }
        createdSharedMemory = !hadSharedMemory && fm.fileExists(atPath: shm)
    }

    /// Whether a `-wal` file with content sits beside the store.
    public var hasWAL: Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0 > 0
    }

    deinit {
        if createdSharedMemory { try? FileManager.default.removeItem(atPath: path + "-shm") }
    }
}
