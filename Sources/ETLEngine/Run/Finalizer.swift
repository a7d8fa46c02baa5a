import Foundation
import ETLStore

/// The last stage: makes the built store durable and moves it into place atomically.
enum Finalizer {
    /// fsyncs the store, then renames it over the destination. With `.backup`, the old
    /// destination is first hard-linked to `NAME.bak`, so at every instant the destination
    /// path holds either the old store or the new one, never nothing. `syncFolder`: fsync
    /// the destination's folder after the rename (else its caller does, `RunOptions.installRecordedByCaller`).
    static func install(_ built: String, at destination: String, backup: String, policy: ReplacePolicy,
                        syncFolder: Bool = true) throws -> String? {
        try fsync(path: built)
        let fm = FileManager.default
        var backedUp: String?
        if fm.fileExists(atPath: destination) {
            // What appeared there during the run is replaced only if it is a regular file.
            if let kind = OwnFile.specialKind(at: destination) {
                throw MigrationError.badDestination(path: destination, reason: "is \(kind); etl replaces only regular files, even with --force or --backup")
            }
            switch policy {
            case .refuse:
                throw MigrationError.badDestination(path: destination, reason: "appeared during the run; it was left as it is. Pass --backup to keep it as \(backup), or --force to replace it")
            case .backup:
                try? fm.removeItem(atPath: backup)
                guard link(destination, backup) == 0 else {
                    throw MigrationError.badDestination(path: destination, reason: "cannot keep a backup at \(backup): \(String(cString: strerror(errno)))")
                }
                backedUp = backup
            case .force:
                break
            }
        }
        guard rename(built, destination) == 0 else {
            throw MigrationError.badDestination(path: destination, reason: "cannot move the new store into place: \(String(cString: strerror(errno)))")
        }
        if syncFolder || backedUp != nil { try fsync(path: URL(fileURLWithPath: destination).deletingLastPathComponent().path) }
        return backedUp
    }

    static func fsync(path: String) throws {
        do { try AtomicFile.sync(path) } catch {
            throw MigrationError.badDestination(path: path, reason: error.reason)
        }
    }
}
