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
        return Data(read(fd, upTo: Int(info.st_size)))
    }

    /// The first `count` bytes of the open file `fd` (fewer at its end or at an error), in
    /// as few reads as the system allows.
    public static func read(_ fd: Int32, upTo count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, done in
            done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                done += n
            }
        }
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

/// The folders Core Data and etl keep beside a store (`.<Store>_SUPPORT/_EXTERNAL_DATA`, a
/// run's `.external` folder) and the files in them, reached without following a link.
///
/// A folder is a `base` the user chose (the store's own folder, opened as given) and the
/// `components` below it, each opened relative to the one before with `O_NOFOLLOW`: a
/// symbolic link planted at or inside them (the support folder, `_EXTERNAL_DATA`, a file)
/// is refused by name, so nothing outside the store's folder is read, linked or written
/// through them.
///
///     let read = try OwnFile.readBeneath(base: "/stores", [".photos_SUPPORT", "_EXTERNAL_DATA"], name: uuid, limit: 256 << 20)
extension OwnFile {
    public enum BeneathRead: Equatable, Sendable {
        case bytes([UInt8])
        /// No such file (or no such folder).
        case missing
        /// A file larger than `limit`: its size.
        case tooLarge(Int64)
    }

    /// The bytes of file `name` in the folder, at most `limit` of them.
    public static func readBeneath(base: String, _ components: [String], name: String, limit: Int) throws -> BeneathRead {
        guard let folder = try openFolder(base: base, components) else { return .missing }
        defer { close(folder) }
        let path = joined(base, components + [name])
        guard let fd = try openFile(in: folder, name, path: path, flags: O_RDONLY) else { return .missing }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno)), code: errno) }
        guard Int64(info.st_size) <= Int64(limit) else { return .tooLarge(Int64(info.st_size)) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Platform.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno)), code: errno) }
            guard n > 0 else { break }  // shorter than it was: what is there
            done += n
        }
        return .bytes(Array(bytes.prefix(done)))
    }

    /// The regular files of the folder and their sizes (links and anything else left out),
    /// sorted by name; empty when there is no such folder.
    public static func filesBeneath(base: String, _ components: [String]) throws -> [(name: String, size: Int64)] {
        guard let folder = try openFolder(base: base, components) else { return [] }
        defer { close(folder) }
        var files: [(name: String, size: Int64)] = []
        for name in try names(in: folder, path: joined(base, components)) {
            var info = stat()
            guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files.append((name, Int64(info.st_size)))
        }
        return files.sorted { $0.name < $1.name }
    }

    /// Puts file `name` of one folder into another (made if needed, never through a link):
    /// a hard link, or a copy across file systems, streamed a MiB at a time, written beside
    /// and renamed (never half a file). A file already there is left alone; a link or
    /// anything but a regular file, on either side, is refused by name.
    public static func placeBeneath(_ name: String, from: (base: String, components: [String]),
                                    to: (base: String, components: [String])) throws {
        let sourcePath = joined(from.base, from.components + [name])
        let targetPath = joined(to.base, to.components + [name])
        guard let source = try openFolder(base: from.base, from.components) else {
            throw Failure(path: sourcePath, reason: "is missing (its folder is)", code: ENOENT)
        }
        defer { close(source) }
        guard let target = try openFolder(base: to.base, to.components, create: true) else {
            throw Failure(path: targetPath, reason: "cannot be made: its folder is missing", code: ENOENT)
        }
        defer { close(target) }
        var info = stat()
        if fstatat(target, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw Failure(path: targetPath, reason: "is \(describe(info.st_mode)), not a file etl placed. Remove it", code: nil)
            }
            return
        }
        guard fstatat(source, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw Failure(path: sourcePath, reason: String(cString: strerror(errno)), code: errno)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(path: sourcePath, reason: "is \(describe(info.st_mode)), not a file of the store; etl never follows a link there. Remove it", code: nil)
        }
        // Flags 0: the link is of the file itself, never of what a link points at.
        if linkat(source, name, target, name, 0) == 0 { return }
        guard let input = try openFile(in: source, name, path: sourcePath, flags: O_RDONLY) else {
            throw Failure(path: sourcePath, reason: "is missing", code: ENOENT)
        }
        defer { close(input) }
        let partial = name + ".etl-partial"
        unlinkat(target, partial, 0)
        let output = openat(target, partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw Failure(path: targetPath + ".etl-partial", reason: String(cString: strerror(errno)), code: errno) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { Platform.read(input, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                let code = errno
                close(output)
                throw Failure(path: sourcePath, reason: String(cString: strerror(code)), code: code)
            }
            if n == 0 { break }
            if let code = write(buffer[..<n], to: output) {
                close(output)
                throw Failure(path: targetPath + ".etl-partial", reason: String(cString: strerror(code)), code: code)
            }
        }
        close(output)
        guard renameat(target, partial, target, name) == 0 else {
            throw Failure(path: targetPath, reason: String(cString: strerror(errno)), code: errno)
        }
    }

    /// The folder `base/components…`, no component followed through a link; nil when one
    /// is missing (made, with `create`).
    static func openFolder(base: String, _ components: [String], create: Bool = false) throws -> Int32? {
        var fd = Platform.open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(path: base, reason: String(cString: strerror(errno)), code: errno)
        }
        var path = base
        for component in components {
            path += "/" + component
            var next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if mkdirat(fd, component, 0o755) != 0, errno != EEXIST {
                    let code = errno
                    close(fd)
                    throw Failure(path: path, reason: "cannot be made: \(String(cString: strerror(code)))", code: code)
                }
                next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                let code = errno
                var info = stat()
                let found = fstatat(fd, component, &info, AT_SYMLINK_NOFOLLOW) == 0
                close(fd)
                if !found && code == ENOENT { return nil }
                if found && info.st_mode & S_IFMT == S_IFLNK {
                    throw Failure(path: path, reason: "is a symbolic link; etl never follows one beside a store. Remove it", code: code)
                }
                if found && info.st_mode & S_IFMT != S_IFDIR {
                    throw Failure(path: path, reason: "is \(describe(info.st_mode)), not a folder. Remove it", code: code)
                }
                throw Failure(path: path, reason: String(cString: strerror(code)), code: code)
            }
            close(fd)
            fd = next
        }
        return fd
    }

    /// File `name` of the folder `folder`, never through a link and never waiting on a
    /// FIFO; nil when there is none; anything but a regular file refused.
    static func openFile(in folder: Int32, _ name: String, path: String, flags: Int32) throws -> Int32? {
        let fd = openat(folder, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            var info = stat()
            if code == ELOOP || (fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK) {
                throw Failure(path: path, reason: "is a symbolic link; etl never follows one beside a store. Remove it", code: code)
            }
            throw Failure(path: path, reason: String(cString: strerror(code)), code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw Failure(path: path, reason: "is \(describe(info.st_mode)), not a file of the store. Remove it", code: nil)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// The names in an open folder (not `.` and `..`).
    static func names(in folder: Int32, path: String) throws -> [String] {
        let copy = dup(folder)
        guard copy >= 0, let stream = fdopendir(copy) else {
            throw Failure(path: path, reason: String(cString: strerror(errno)), code: errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func joined(_ base: String, _ components: [String]) -> String {
        ([base] + components).joined(separator: "/")
    }
}
