import Foundation

/// A SQLite `-wal` file's bytes rewritten as a test needs them, with every checksum made to
/// hold again as SQLite computes them (sqlite.org/fileformat2.html, "The WAL File Format"):
/// what a forger does after changing a field, or a writer would have written.
public enum WALFrames {
    /// The page size the WAL's header gives.
    public static func pageSize(of wal: [UInt8]) -> Int {
        wal[8..<12].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The WAL's checksums written again: the header's, then those of each frame that has
    /// the header's salts, running on from one to the next.
    public static func resum(_ wal: inout [UInt8]) {
        let pageSize = pageSize(of: wal)
        func be(_ at: Int) -> UInt32 { wal[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func put(_ value: UInt32, _ at: Int) { for i in 0..<4 { wal[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) } }
        let bigEndian = be(0) & 1 == 1
        var s0: UInt32 = 0, s1: UInt32 = 0
        func sum(_ range: Range<Int>) {
            var i = range.lowerBound
            while i < range.upperBound {
                let x0 = bigEndian ? be(i) : be(i).byteSwapped, x1 = bigEndian ? be(i + 4) : be(i + 4).byteSwapped
                s0 = s0 &+ x0 &+ s1
                s1 = s1 &+ x1 &+ s0
                i += 8
            }
        }
        sum(0..<24)
        put(s0, 24); put(s1, 28)
        var at = 32
        while at + 24 + pageSize <= wal.count {
            sum(at..<at + 8)
            sum(at + 24..<at + 24 + pageSize)
            if wal[at + 8..<at + 16].elementsEqual(wal[16..<24]) { put(s0, at + 16); put(s1, at + 20) }
            at += 24 + pageSize
        }
    }

    /// The WAL with its frames written `times` times over, one run after the other, checksums
    /// made to hold: the same transactions committed again, so the same store, in a WAL
    /// `times` times as long. (Its last frame must be a commit.)
    public static func repeated(_ wal: [UInt8], times: Int) -> [UInt8] {
        let frameSize = 24 + pageSize(of: wal)
        let frames = wal[32..<(32 + (wal.count - 32) / frameSize * frameSize)]
        var longer = Array(wal[0..<32])
        longer.reserveCapacity(32 + frames.count * times)
        for _ in 0..<times { longer += frames }
        resum(&longer)
        return longer
    }
}
