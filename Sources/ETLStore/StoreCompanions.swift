import Foundation

/// The files SQLite keeps beside a store (`-wal`, `-shm`, `-journal`) as a reader of a store
/// it did not write meets them.
///
/// SQLite opens them as it finds them: a FIFO named `STORE-wal` makes it (and anything
/// reading it) wait forever for a writer. So each is looked at first without opening it
/// (`lstat`), beside the path given and beside the file a link leads to (SQLite looks
/// there), and anything but a regular file is refused.
///
/// A read-only connection to a store in WAL mode makes a `-wal` and a `-shm` beside it when
/// there are none, and cannot remove them; killed, a reader leaves them for good. A store
/// in WAL mode whose `-wal` is missing or empty holds all its transactions in its own file,
/// so it is read `immutable`: SQLite then makes no file beside it (a writer starting
/// meanwhile is noticed by the run's checks of the store's and `-wal`'s size and time).
public enum StoreCompanions {
    public static let suffixes = ["-wal", "-shm", "-journal"]

    /// Refuses a companion file of `path` that is not a regular file.
    /// - Throws: `StoreError` (`SQLiteCode.cantOpen`) naming the file and what it is.
    public static func check(_ path: String) throws {
        guard path != ":memory:", !path.isEmpty else { return }
        var bases = [path]
        if let real = realpath(path, nil) {
            let resolved = String(cString: real)
            free(real)
            if resolved != path { bases.append(resolved) }
        }
        for base in bases {
            for suffix in suffixes {
                var info = stat()
                let file = base + suffix
                guard lstat(file, &info) == 0 else { continue }
                guard info.st_mode & S_IFMT == S_IFREG else {
                    throw StoreError(path: path, code: SQLiteCode.cantOpen,
                                     message: "\(file) is \(OwnFile.describe(info.st_mode)), not SQLite's \(suffix) file: SQLite would open it as one "
                                        + "(and wait forever on a FIFO). Nothing was read. Remove it")
                }
            }
        }
    }

    /// Whether the store at `path` is in WAL mode (its header's bytes 18 and 19 are 2) with
    /// no `-wal` content: SQLite would make a `-wal` and `-shm` to read it, and need neither.
    public static func readsImmutable(_ path: String) -> Bool {
        guard path != ":memory:", !path.isEmpty else { return false }
        var info = stat()
        if lstat(path + "-wal", &info) == 0, info.st_mode & S_IFMT != S_IFREG || info.st_size > 0 { return false }
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        defer { Platform.close(fd) }
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var header = [UInt8](repeating: 0, count: 20)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 20, 0) }) == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    /// A read-only URI of `path` (its characters percent-encoded, so it is taken literally),
    /// `immutable` when `readsImmutable`.
    public static func readOnlyURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro" + (readsImmutable(path) ? "&immutable=1" : "")
    }
}
