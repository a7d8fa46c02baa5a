import Foundation

/// A source's `-wal` checked before SQLite reads it. SQLite applies a WAL's frames up to
/// the last commit whose checksums hold, and quietly ignores the rest: one damaged byte in
/// the first frame reads the store as if no transaction in the WAL had happened (0 of 10
/// bookmarks, no error). Here every frame of the WAL's current generation (the salts of its
/// header) is checked, from the header on; one whose checksum fails — before any commit,
/// among the commits, or after the last one — refuses the store, naming the file and the
/// frame. Frames of an earlier generation (other salts) are where the log ends, as for SQLite.
///
/// Format (sqlite.org/fileformat2.html, "The WAL File Format"): a 32-byte header (magic
/// 0x377f0682 or 0x377f0683, whose low bit says the checksums' word order is big-endian,
/// version, page size, checkpoint sequence, two salts, and the header's checksum), then
/// frames of a 24-byte header (page number, database size after a commit or 0, the two
/// salts, the checksum) and a page. Checksums run on from the header's over each frame's
/// first 8 header bytes and its page.
enum WALCheck {
    struct Damaged: Error, CustomStringConvertible {
        let description: String
    }

    static func check(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = [UInt8](try handle.read(upToCount: 32) ?? Data())
        guard !header.isEmpty else { return }
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
        func sum(_ bytes: ArraySlice<UInt8>) {
            var i = bytes.startIndex
            while i + 8 <= bytes.endIndex {
                let x0 = word(bytes, i), x1 = word(bytes, i + 4)
                s0 = s0 &+ x0 &+ s1
                s1 = s1 &+ x1 &+ s0
                i += 8
            }
        }
        func word(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
            let b = bytes[at..<at + 4]
            return wordsBigEndian ? bigEndian(b) : b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        sum(header[0..<24])
        guard s0 == bigEndian(header[24..<28]), s1 == bigEndian(header[28..<32]) else {
            throw Damaged(description: "\(path): the WAL header fails its checksum, so SQLite would ignore every transaction in it")
        }
        let salts = header[16..<24]
        var frame = 0
        var lastCommit = 0
        while let data = try handle.read(upToCount: 24 + pageSize), data.count == 24 + pageSize {
            frame += 1
            let bytes = [UInt8](data)
            guard bytes[8..<16].elementsEqual(salts) else { break }
            sum(bytes[0..<8])
            sum(bytes[24...])
            guard s0 == bigEndian(bytes[16..<20]), s1 == bigEndian(bytes[20..<24]) else {
                let place = lastCommit == 0 ? "before any commit" : "after the commit in frame \(lastCommit)"
                throw Damaged(description: "\(path): frame \(frame) (page \(bigEndian(bytes[0..<4])), \(place)) fails its checksum: "
                    + "SQLite would read the store without it and every frame after it, as if those transactions had not happened")
            }
            if bigEndian(bytes[4..<8]) != 0 { lastCommit = frame }
        }
    }
}
