/// A file's size and modification time, from lstat(2), as `FileManager.attributesOfItem`
/// gives them (`.size`, `.modificationDate`), without the rest that call does each time:
/// the owner's and group's names (reading /etc/passwd and /etc/group), the extended
/// attributes. A run asks the size or time of a source and its `-wal` several times;
/// a batch, for every store.
///
/// Like that call, the link itself when `path` is a symbolic link, not what it points to.
public struct FileStatus: Sendable, Equatable {
    public var size: Int64
    /// Seconds since 1970, the very double `.modificationDate.timeIntervalSince1970` is:
    /// Foundation makes its date from the seconds and nanoseconds through the reference date
    /// of 2001, and a checkpoint written by an etl that asked Foundation compares equal.
    public var modified: Double

    /// The status of `path`, or nil when there is none (missing, unreadable folder).
    public static func of(_ path: String) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let time = Platform.modificationTime(info)
        let sinceReferenceDate = Double(time.tv_sec) - secondsFrom1970To2001 + Double(time.tv_nsec) / 1_000_000_000
        return FileStatus(size: Int64(info.st_size), modified: sinceReferenceDate + secondsFrom1970To2001)
    }

    /// The size of `path`, 0 when there is no such file (as `attributesOfItem(…)[.size] ?? 0`).
    public static func size(of path: String) -> Int64 {
        of(path)?.size ?? 0
    }

    /// Foundation's `Date.timeIntervalBetween1970AndReferenceDate`.
    private static let secondsFrom1970To2001: Double = 978_307_200
}
