import Foundation
import ETLStore

/// File operations the batch needs beyond FileManager's.
enum BatchFiles {
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = identity(a), let y = identity(b) else { return false }
        return x == y
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int64(info.st_size)
    }

    /// Renames, or (to another file system) copies, syncs and renames, then removes the
    /// source: at every instant the file is whole at one place at least.
    static func move(_ source: String, to target: String) throws {
        if rename(source, target) == 0 { return }
        let code = errno
        guard code == EXDEV else {
            throw BatchStoreError("cannot move \(source) to \(target): \(String(cString: strerror(code)))")
        }
        let partial = target + ".etl-partial"
        let fm = FileManager.default
        try? fm.removeItem(atPath: partial)
        do {
            try fm.copyItem(atPath: source, toPath: partial)
        } catch {
            throw BatchStoreError("cannot copy \(source) to \(partial): \(error)")
        }
        try? AtomicFile.sync(partial)
        guard rename(partial, target) == 0 else {
            throw BatchStoreError("cannot move \(partial) to \(target): \(String(cString: strerror(errno)))")
        }
        syncFolder(of: target)
        try? fm.removeItem(atPath: source)
    }

    static func syncFolder(of path: String) {
        try? AtomicFile.syncFolder(of: path)
    }

    /// Writes `data` to `path` through a temporary file beside it, renamed over it.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder.isEmpty ? "." : folder, withIntermediateDirectories: true)
        do {
            try AtomicFile.write(data, to: path, temporary: path + ".tmp-\(getpid())", durable: true)
        } catch {
            throw BatchIOError("cannot write \(error.path): \(error.reason)")
        }
    }
}
