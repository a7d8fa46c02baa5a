import Foundation
import ETLStore

/// What a source store was when a batch migrated it: its file (device, inode), size,
/// modification time, a hash of its first and last pages, and its `-wal`'s size and
/// modification time (a transaction may change the WAL alone). Kept in the store's manifest
/// entry; a rerun that finds it different migrates the store again instead of serving the
/// old result (a store replaced after last night's run). With `--verify-sources`, also a
/// hash of the whole store and its `-wal` (`content`): a change in a middle page with the
/// size and time put back is caught too. The same identity of a result (`BatchStoreResult.result`)
/// tells a rerun that the result is still the one the batch made.
public struct BatchSourceIdentity: Sendable, Codable, Equatable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Nanoseconds since 1970.
    public var modified: Int64
    /// FNV-1a 64 of the first and of the last 4 KiB, in hex.
    public var firstPage: String
    public var lastPage: String
    public var walSize: Int64?
    public var walModified: Int64?
    /// `--verify-sources`: FNV-1a 64 of the whole file, then of its `-wal` if any.
    public var content: String?

    /// The identity of the store at `path` now, or nil when it cannot be read; `whole`:
    /// with the hash of all of its bytes (`content`).
    public static func of(_ path: String, whole: Bool = false) -> BatchSourceIdentity? {
        guard let file = fileStatus(of: path), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let page: UInt64 = 4096
        let first = (try? handle.read(upToCount: Int(page))) ?? Data()
        let last: Data
        if UInt64(file.size) > page, (try? handle.seek(toOffset: UInt64(file.size) - page)) != nil {
            last = (try? handle.read(upToCount: Int(page))) ?? Data()
        } else {
            last = first
        }
        let wal = fileStatus(of: path + "-wal")
        var identity = BatchSourceIdentity(device: file.device, inode: file.inode, size: file.size, modified: file.modified,
                                           firstPage: BatchHash.hex(first), lastPage: BatchHash.hex(last),
                                           walSize: wal?.size, walModified: wal?.modified)
        if whole {
            guard let content = BatchHash.ofFile(path) else { return nil }
            identity.content = content + (wal == nil ? "" : "+" + (BatchHash.ofFile(path + "-wal") ?? BatchInputs.missing))
        }
        return identity
    }

    /// What differs from `recorded`, for the note; empty when it is the same file. The whole
    /// content is compared when both have it; with `verify` (`--verify-sources`), an entry
    /// recorded without it cannot be verified, and counts as changed.
    public func changes(since recorded: BatchSourceIdentity, verify: Bool) -> [String] {
        var found = differences(from: recorded)
        if let content, let before = recorded.content, content != before, !found.contains("content") {
            found.append("content")
        } else if verify, recorded.content == nil {
            found.append("no hash of its whole content recorded to verify it against (first run with --verify-sources)")
        }
        return found
    }

    /// What differs from `other`, for the note ("size, modification time").
    public func differences(from other: BatchSourceIdentity) -> [String] {
        var found: [String] = []
        if device != other.device || inode != other.inode { found.append("another file") }
        if size != other.size { found.append("size \(other.size) → \(size) bytes") }
        if modified != other.modified { found.append("modification time") }
        if firstPage != other.firstPage || lastPage != other.lastPage { found.append("content") }
        if walSize != other.walSize || walModified != other.walModified { found.append("its -wal") }
        return found
    }

    private static func fileStatus(of path: String) -> (device: UInt64, inode: UInt64, size: Int64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size),
                Int64(Platform.modificationTime(info).tv_sec) * 1_000_000_000 + Int64(Platform.modificationTime(info).tv_nsec))
    }
}
