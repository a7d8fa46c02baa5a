import Foundation
import ETLStore

/// Builds the `SourceImage` of a small store whose `-wal` holds transactions: its file's
/// pages with the WAL's committed frames written over them, as SQLite's recovery applies
/// them (`WALCheck.CommittedPages`), cut or extended to the store's size after the last
/// commit.
///
/// Only where SQLite would build its index of the WAL from the WAL alone: when no `-shm`
/// is beside the store (a `-shm` may be a live writer's index, which SQLite would follow).
/// And only when the file and the WAL are unchanged from before they were read to after:
/// a program writing the store meanwhile leaves it to SQLite, which reads it under its locks.
enum SourceWALImage {
    /// Stores and WALs together above this size are read from their files: an image costs
    /// its size in memory for the run, and a big store spends its time on its rows.
    static let maximumBytes: Int64 = 16 << 20

    /// Whether an image of the store at `path` is worth gathering the WAL's pages for.
    static func wanted(store path: String) -> Bool {
        var info = stat()
        guard lstat(path + "-shm", &info) != 0, errno == ENOENT else { return false }
        guard let store = FileStatus.of(path), let wal = FileStatus.of(path + "-wal"), wal.size > 0 else { return false }
        return store.size + wal.size <= maximumBytes
    }

    /// The image of the store at `path` with `committed`, or nil when it is better read from
    /// its files (see above); `before` is the store's and WAL's status from before the WAL
    /// was read.
    static func make(store path: String, committed: WALCheck.CommittedPages,
                     before: (store: FileStatus?, wal: FileStatus?)) -> SourceImage? {
        guard committed.databasePages > 0, committed.pageSize > 0, let status = before.store,
              status.size <= maximumBytes else { return nil }
        guard var bytes = read(path, size: Int(status.size)) else { return nil }
        // The store's own page size (header bytes 16 and 17, 1 for 65536) must be the WAL's.
        if bytes.count >= 100 {
            let declared = Int(bytes[16]) << 8 | Int(bytes[17])
            guard (declared == 1 ? 65536 : declared) == committed.pageSize else { return nil }
        }
        let pageSize = committed.pageSize
        let size = committed.databasePages * pageSize
        if bytes.count > size { bytes.removeLast(bytes.count - size) }
        if bytes.count < size { bytes.append(contentsOf: repeatElement(0, count: size - bytes.count)) }
        for (page, content) in committed.pages where Int(page) <= committed.databasePages && content.count == pageSize {
            let start = (Int(page) - 1) * pageSize
            bytes.replaceSubrange(start..<(start + pageSize), with: content)
        }
        guard FileStatus.of(path) == before.store, FileStatus.of(path + "-wal") == before.wal else { return nil }
        return try? SourceImage(path: path, bytes: bytes)
    }

    /// The `size` bytes of the regular file at `path` (not a link), or nil when it has not
    /// that many.
    private static func read(_ path: String, size: Int) -> [UInt8]? {
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { Platform.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == size else { return nil }
        let bytes = OwnFile.read(fd, upTo: size)
        return bytes.count == size ? bytes : nil
    }
}
