import Foundation

/// The one way etl replaces a small file of its own (a checkpoint, a batch report): the
/// bytes go to a temporary file beside it, made afresh (`OwnFile.create`: a planted link
/// there is removed, never followed), optionally fsynced, then renamed over the file. At
/// every instant the path holds the old bytes or the new ones, never a part.
///
///     try AtomicFile.write(bytes, to: "out.sqlite.etl-checkpoint", durable: true)
public enum AtomicFile {
    /// Why the file could not be written; `errorCode` is errno (`ENOSPC`: the disk is full).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var errorCode: Int32?
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes `bytes` to `path` through `temporary` (default `PATH.tmp`). `durable`: fsync
    /// before the rename, and the folder after it.
    public static func write<Bytes: ContiguousBytes>(_ bytes: Bytes, to path: String, temporary: String? = nil,
                                                     durable: Bool) throws(Failure) {
        let temporary = temporary ?? path + ".tmp"
        let fd: Int32
        do { fd = try OwnFile.create(temporary) } catch let failure as OwnFile.Failure {
            throw Failure(path: temporary, reason: failure.reason, errorCode: failure.code)
        } catch {
            throw Failure(path: temporary, reason: "\(error)", errorCode: nil)
        }
        let wrote = OwnFile.write(bytes, to: fd)
        if let code = wrote ?? (durable && fsync(fd) != 0 ? errno : nil) {
            close(fd)
            unlink(temporary)
            throw Failure(path: temporary, reason: describe(code), errorCode: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(path: path, reason: describe(code), errorCode: code)
        }
        if durable { try syncFolder(of: path) }
    }

    /// fsyncs a file or a folder.
    public static func sync(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: "cannot open to sync: " + describe(errno), errorCode: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(path: path, reason: "cannot sync to disk: " + describe(errno), errorCode: errno) }
    }

    /// fsyncs the folder holding `path`, so that a rename in it survives a power loss.
    public static func syncFolder(of path: String) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        try sync(folder.isEmpty ? "." : folder)
    }

    private static func describe(_ code: Int32) -> String {
        code == ENOSPC ? "the disk is full" : String(cString: strerror(code))
    }
}
