import Foundation
import ETLStore

/// The `-shm` (and empty `-wal`) SQLite makes beside a source whose `-wal` has content, for
/// the run that reads it, recorded outside the source's folder so that the next run knows
/// them for its own: a run killed while reading cannot remove them, and every later run
/// would take them for the store's. A store without `-wal` content gets none (it is read
/// `immutable`, `StoreCompanions`).
///
/// The record (in the system's temporary folder, named by a fingerprint of the store's
/// path) holds each file's device and inode. The next reader of the store removes a file
/// still there under the same inode when no connection holds it: SQLite keeps a read lock
/// on the `-shm`'s "dead man switch" byte (128) while any connection uses it, and makes the
/// file anew when the next one needs it.
enum SourceCompanionRecord {
    /// Where the record of `store` is kept. (Its path resolved: worked out once per store,
    /// by `SourceStore`, and handed to the calls below.)
    static func path(of store: String) -> String {
        var hash = FNV1a()
        hash.add(Array(((store as NSString).standardizingPath as String).utf8))
        return (NSTemporaryDirectory() as NSString).appendingPathComponent("etl-companions/\(hash.hex)")
    }

    /// Records that `files` (beside the store) were made for this run, in `record` (`path(of:)`).
    static func record(_ files: [String], in record: String) {
        let lines = files.compactMap { file -> String? in
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return "\(info.st_dev) \(info.st_ino) \(file)"
        }
        guard !lines.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: (record as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Renamed into place whole, not fsynced: a killed run leaves it complete, and one a
        // crash of the machine loses leaves a -shm SQLite reads as its own and remakes.
        try? AtomicFile.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: record, durable: false)
    }

    /// Forgets `record` (its files were removed by the run that made them).
    static func forget(_ record: String) {
        unlink(record)
    }

    /// Removes the files an earlier, killed run recorded for `store` in `record`, when they
    /// are still the same files and nobody uses them; then the record.
    static func removeLeftovers(of store: String, record: String) {
        guard let text = try? String(contentsOfFile: record, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { continue }
            let file = String(parts[2])
            guard file == store + "-shm" || file == store + "-wal" else { continue }
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else { continue }
            if file.hasSuffix("-wal") {
                // Only an empty WAL: one with content holds transactions.
                if info.st_size == 0 { unlink(file) }
            } else if !inUse(file) {
                unlink(file)
            }
        }
        unlink(record)
    }

    /// Whether a connection holds SQLite's lock on the `-shm`'s byte 128 (it keeps a read
    /// lock there while connected). Opened without blocking; undecided counts as in use.
    private static func inUse(_ shm: String) -> Bool {
        let fd = Platform.open(shm, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else { return true }
        defer { Platform.close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }
}
