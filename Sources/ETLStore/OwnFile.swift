import Foundation

/// Opens the files etl itself creates beside a destination or in an archive (run locks,
/// checkpoints, batch manifests) so that whatever someone planted under their names
/// cannot redirect them: a symbolic link is never followed (`O_NOFOLLOW`), a FIFO never
/// blocks the open (`O_NONBLOCK`), and anything but a regular file with a single link
/// (a FIFO, a device, a socket, a folder, a hard link to a file elsewhere) is refused
/// before a byte is written. Nothing outside the folder is ever touched through them.
///
///     let fd = try OwnFile.open("out.sqlite.etl-lock", flags: O_RDWR | O_CREAT)
///     defer { close(fd) }
public enum OwnFile {
    /// Why a file could not be opened: `code` is errno when the system refused.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var code: Int32?
        public var description: String { "\(path) \(reason)" }
    }

    /// Opens `path` with `flags` (plus `O_NOFOLLOW`, `O_NONBLOCK`, `O_CLOEXEC`), creating it
    /// with `mode` under `O_CREAT`; the descriptor is blocking again once checked.
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        let fd = Platform.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP || isSymbolicLink(path) {
                throw Failure(path: path, reason: "is a symbolic link; etl never writes through one. Remove it", code: code)
            }
            if code == ENXIO || code == EISDIR, let kind = kind(at: path) {
                throw Failure(path: path, reason: "is \(kind), not a file etl made. Remove it", code: code)
            }
            throw Failure(path: path, reason: String(cString: strerror(code)), code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Platform.close(fd)
            throw Failure(path: path, reason: String(cString: strerror(code)), code: code)
        }
        if info.st_mode & S_IFMT != S_IFREG {
            Platform.close(fd)
            throw Failure(path: path, reason: "is \(describe(info.st_mode)), not a file etl made. Remove it", code: nil)
        }
        if info.st_nlink > 1 {
            Platform.close(fd)
            throw Failure(path: path, reason: "has \(info.st_nlink) hard links: it is also a file elsewhere, which etl must not write. Remove it", code: nil)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Creates `path` afresh for writing: whatever file or link was there is removed first
    /// (the link itself, never what it points at); a folder there is refused.
    public static func create(_ path: String, mode: mode_t = 0o644) throws -> Int32 {
        if let kind = kind(at: path) {
            guard kind != "a folder" else { throw Failure(path: path, reason: "is a folder, not a file etl made. Remove it", code: EISDIR) }
            unlink(path)
        }
        return try open(path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
    }

    /// The whole of a file etl made, at most `limit` bytes; nil when there is none.
    public static func read(_ path: String, limit: Int) throws -> Data? {
        guard kind(at: path) != nil else { return nil }
        let fd = try open(path, flags: O_RDONLY)
        defer { Platform.close(fd) }
        var info = stat()
        _ = fstat(fd, &info)
        guard Int(info.st_size) <= limit else {
            throw Failure(path: path, reason: "is \(info.st_size) bytes, more than the \(limit) such a file can be", code: nil)
        }
        var data = Data(count: Int(info.st_size))
        var done = 0
        while done < data.count {
            let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return data.prefix(done)
    }

    /// Writes all of `bytes` to the descriptor `fd` (again after an interrupted or short
    /// write); the errno of a failed write, or nil.
    public static func write<Bytes: ContiguousBytes>(_ bytes: Bytes, to fd: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return errno }
                done += n
            }
            return nil
        }
    }

    /// What is at `path` without following a link ("a symbolic link", "a FIFO", …), or nil
    /// when nothing is.
    public static func kind(at path: String) -> String? {
        mode(at: path).map(describe)
    }

    /// The type and permission bits of what is at `path` (of a link itself, unless
    /// `followingLinks`), or nil when nothing is.
    public static func mode(at path: String, followingLinks: Bool = false) -> mode_t? {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        return info.st_mode
    }

    /// What is at `path` when it is something other than a regular file (following links:
    /// a store may be reached through one), else nil. A source must be a regular file, and
    /// `--force` and `--backup` replace nothing else: a FIFO would hang the reader, and a
    /// device would be replaced by a file.
    public static func specialKind(at path: String) -> String? {
        guard let mode = mode(at: path, followingLinks: true), mode & S_IFMT != S_IFREG else { return nil }
        return describe(mode)
    }

    public static func isSymbolicLink(_ path: String) -> Bool { kind(at: path) == "a symbolic link" }

    /// "a FIFO", "a character device", … of a file's mode.
    public static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
