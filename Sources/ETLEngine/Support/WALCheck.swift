import Foundation
import ETLStore

/// A source's `-wal` checked before SQLite reads it, frame by frame as SQLite's own
/// recovery reads it (`walIndexRecover` and `walDecodeFrame` in SQLite's wal.c): SQLite
/// takes frames from the first one on while each has the header's salts, a page number
/// other than 0 and a checksum that holds, and applies them up to the last commit among
/// them; at the first frame that fails it stops, quietly: one damaged byte in the first
/// frame reads the store as if no transaction in the WAL had happened (0 of 10 bookmarks,
/// no error). Here, where SQLite would stop short of what the WAL holds, the store is
/// refused, naming the file and the frame:
/// - a frame of the header's generation whose checksum fails, or whose page number is 0,
///   or lies beyond the store's size after its commit (a page SQLite never reads);
/// - a first frame whose salts are not the header's (SQLite then reads no frame at all),
///   or a later frame with salts of no earlier generation (an earlier one's first salt is
///   smaller: SQLite adds one to it at every restart of the log).
/// Frames of an earlier generation after the current one's are where the log ends, as for
/// SQLite: they were checkpointed before the log restarted.
///
/// The file is opened only when it is a regular file, without blocking (`O_NONBLOCK`, then
/// `fstat`): a FIFO named `STORE-wal` would otherwise wait forever for a writer.
///
/// Format (sqlite.org/fileformat2.html, "The WAL File Format"): a 32-byte header (magic
/// 0x377f0682 or 0x377f0683, whose low bit says the checksums' word order is big-endian,
/// version, page size, checkpoint sequence, two salts, and the header's checksum), then
/// frames of a 24-byte header (page number, database size after a commit or 0, the two
/// salts, the checksum) and a page. Checksums run on from the header's over each frame's
/// first 8 header bytes and its page.
public enum WALCheck {
    public struct Damaged: Error, CustomStringConvertible {
        public let description: String
    }

    /// What SQLite reads of a WAL: its header's salts and checkpoint sequence, how many
    /// frames it applies (up to the last commit) and how many the file holds.
    public struct Summary: Equatable, Sendable {
        public var salts: UInt64
        public var checkpointSequence: UInt32
        public var committedFrames: Int
    }

    /// The pages of the frames SQLite applies (up to the last commit), the last frame of
    /// each page winning, and the store's size in pages after that commit.
    final class CommittedPages {
        var pageSize = 0
        var databasePages = 0
        var pages: [UInt32: ArraySlice<UInt8>] = [:]
    }

    /// Checks the WAL at `path`; nil when there is none (or an empty one). With `pages`,
    /// also gathers the pages of its committed frames there.
    @discardableResult
    static func check(_ path: String, pages: CommittedPages? = nil) throws -> Summary? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Damaged(description: "\(path): is \(OwnFile.describe(info.st_mode)), not SQLite's -wal file. Remove it")
        }
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else {
            let code = errno
            throw Damaged(description: "\(path): cannot be opened (\(String(cString: strerror(code))))")
        }
        defer { Platform.close(fd) }
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Damaged(description: "\(path): is \(OwnFile.describe(info.st_mode)), not SQLite's -wal file. Remove it")
        }
        // A WAL of up to 64 MiB is read in one go (a frame at a time, a small store's WAL
        // took a read and an array per frame), a bigger one frame by frame.
        if info.st_size <= 64 << 20 {
            return try check(bytes: OwnFile.read(fd, upTo: Int(info.st_size)), path: path, pages: pages)
        }
        return try check(path: path, pages: pages) { count in
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { Platform.read(fd, $0.baseAddress! + got, count - got) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            return Array(bytes[0..<got])
        }
    }

    /// Checks the WAL `bytes` (a whole `-wal` file's); `path` names it in messages. For the fuzz target.
    public static func check(bytes: [UInt8], path: String) throws -> Summary? {
        try check(bytes: bytes, path: path, pages: nil)
    }

    static func check(bytes: [UInt8], path: String, pages: CommittedPages?) throws -> Summary? {
        var at = 0
        return try check(path: path, pages: pages) { count in
            let end = min(bytes.count, at + count)
            defer { at = end }
            return Array(bytes[at..<end])
        }
    }

    /// Checks the WAL whose bytes `read` gives, in order (at most the count asked for; fewer
    /// at its end). `path` names it in messages.
    static func check(path: String, pages committed: CommittedPages? = nil,
                      read: (Int) throws -> [UInt8]) throws -> Summary? {
        let header = try read(32)
        guard !header.isEmpty else { return nil }
        func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }
        guard header.count == 32 else {
            throw Damaged(description: "\(path): the WAL header is cut short (\(header.count) of 32 bytes)")
        }
        let magic = bigEndian(header[0..<4])
        guard magic == 0x377f0682 || magic == 0x377f0683 else {
            throw Damaged(description: "\(path): is no SQLite WAL (its magic number is \(String(magic, radix: 16)))")
        }
        let wordsBigEndian = magic & 1 == 1
        let pageSize = Int(bigEndian(header[8..<12]))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw Damaged(description: "\(path): the WAL header gives page size \(pageSize)")
        }
        var s0: UInt32 = 0, s1: UInt32 = 0
        // Over the bytes in place, a word at a time: a slice per word, reversed and reduced,
        // took 2.5 % of a batch of small Core Data stores (perf; 0.8 % with this).
        func sum(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { raw in
                var i = 0
                while i + 8 <= raw.count {
                    let a = raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)
                    let b = raw.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self)
                    let x0 = wordsBigEndian ? UInt32(bigEndian: a) : UInt32(littleEndian: a)
                    let x1 = wordsBigEndian ? UInt32(bigEndian: b) : UInt32(littleEndian: b)
                    s0 = s0 &+ x0 &+ s1
                    s1 = s1 &+ x1 &+ s0
                    i += 8
                }
            }
        }
        sum(header[0..<24])
        guard s0 == bigEndian(header[24..<28]), s1 == bigEndian(header[28..<32]) else {
            throw Damaged(description: "\(path): the WAL header fails its checksum, so SQLite would ignore every transaction in it")
        }
        let salts = header[16..<24]
        let salt1 = bigEndian(header[16..<20])
        var frame = 0
        var lastCommit = 0
        // Frames since the last commit, with their page numbers: checked against the size
        // their commit gives the store.
        var pending: [(frame: Int, page: UInt32)] = []
        var pendingPages: [(page: UInt32, bytes: ArraySlice<UInt8>)] = []
        committed?.pageSize = pageSize
        func place() -> String { lastCommit == 0 ? "before any commit" : "after the commit in frame \(lastCommit)" }
        while true {
            let bytes = try read(24 + pageSize)
            guard bytes.count == 24 + pageSize else { break }
            frame += 1
            let page = bigEndian(bytes[0..<4])
            guard bytes[8..<16].elementsEqual(salts) else {
                let other = bigEndian(bytes[8..<12])
                // An earlier generation's first salt is smaller (modulo 2^32): SQLite adds one per restart.
                let earlier = salt1 &- other
                if frame == 1 {
                    throw Damaged(description: "\(path): frame 1's salts are not the WAL header's, so SQLite would read no frame of it "
                        + "(\(frameCount(pageSize: pageSize, read: read) + 1) frames left unread)")
                }
                guard earlier != 0, earlier < 1 << 31 else {
                    throw Damaged(description: "\(path): frame \(frame) (page \(page), \(place())) has salts of no earlier generation of the log: "
                        + "SQLite would stop reading there, as if the transactions in it and after it had not happened")
                }
                break
            }
            sum(bytes[0..<8])
            sum(bytes[24...])
            guard s0 == bigEndian(bytes[16..<20]), s1 == bigEndian(bytes[20..<24]) else {
                throw Damaged(description: "\(path): frame \(frame) (page \(page), \(place())) fails its checksum: "
                    + "SQLite would read the store without it and every frame after it, as if those transactions had not happened")
            }
            guard page != 0 else {
                throw Damaged(description: "\(path): frame \(frame) (\(place())) gives page number 0, where SQLite stops reading: "
                    + "it would read the store without it and every frame after it, as if those transactions had not happened")
            }
            pending.append((frame, page))
            if committed != nil { pendingPages.append((page, bytes[24...])) }
            let size = bigEndian(bytes[4..<8])
            if size != 0 {
                if let beyond = pending.first(where: { $0.page > size }) {
                    throw Damaged(description: "\(path): frame \(beyond.frame) gives page \(beyond.page), beyond the store's \(size) pages after "
                        + "the commit in frame \(frame): SQLite never reads it, so the page's content in that transaction would be lost")
                }
                pending.removeAll(keepingCapacity: true)
                if let committed {
                    for (page, bytes) in pendingPages { committed.pages[page] = bytes }
                    committed.databasePages = Int(size)
                    pendingPages.removeAll()
                }
                lastCommit = frame
            }
        }
        return Summary(salts: UInt64(salt1) << 32 | UInt64(bigEndian(header[20..<24])),
                       checkpointSequence: bigEndian(header[12..<16]), committedFrames: lastCommit)
    }

    /// How many whole frames `read` still gives.
    private static func frameCount(pageSize: Int, read: (Int) throws -> [UInt8]) -> Int {
        var count = 0
        while let bytes = try? read(24 + pageSize), bytes.count == 24 + pageSize { count += 1 }
        return count
    }

    /// The WAL's header fields SQLite changes when it restarts the log (salts, checkpoint
    /// sequence), read without blocking from a regular file; nil when there is no WAL header.
    static func headerStamp(_ path: String) -> (salts: UInt64, checkpointSequence: UInt32, pageSize: Int)? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = Platform.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { Platform.close(fd) }
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var header = [UInt8](repeating: 0, count: 32)
        guard header.withUnsafeMutableBytes({ Platform.read(fd, $0.baseAddress, 32) }) == 32 else { return nil }
        func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }
        return (UInt64(bigEndian(header[16..<20])) << 32 | UInt64(bigEndian(header[20..<24])), bigEndian(header[12..<16]), Int(bigEndian(header[8..<12])))
    }
}
