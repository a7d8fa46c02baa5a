/// Finds where each zstd frame of a file ends, from the frame format alone (RFC 8878,
/// section 3.1): a file of frames appended one by one can then be read frame by frame,
/// and an incomplete last frame (a write cut short) told apart from the complete ones.
enum ZstdFrameScanner {
    enum Scan: Equatable {
        /// A whole frame of this many bytes.
        case complete(Int)
        /// The bytes end before the frame does.
        case truncated
        /// Not a zstd frame.
        case invalid
    }

    /// Where the next frame after `offset` may start: the next zstd magic number
    /// (`28 B5 2F FD`), or nil when there is none.
    static func nextFrame(in bytes: [UInt8], after offset: Int) -> Int? {
        var i = offset + 1
        while i + 4 <= bytes.count {
            if bytes[i] == 0x28, bytes[i + 1] == 0xB5, bytes[i + 2] == 0x2F, bytes[i + 3] == 0xFD { return i }
            i += 1
        }
        return nil
    }

    /// The frame starting at `offset`.
    static func scan(_ bytes: [UInt8], at offset: Int) -> Scan {
        var i = offset
        let end = bytes.count
        func need(_ n: Int) -> Bool { i + n <= end }
        func little(_ at: Int, _ n: Int) -> UInt64 {
            var value: UInt64 = 0
            for k in 0..<n { value |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            return value
        }
        guard need(4) else { return .truncated }
        let magic = UInt32(little(i, 4))
        i += 4
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // A skippable frame: a 4-byte size, then that many bytes.
            guard need(4) else { return .truncated }
            let size = Int(little(i, 4))
            i += 4
            return need(size) ? .complete(i + size - offset) : .truncated
        }
        guard magic == 0xFD2F_B528 else { return .invalid }
        guard need(1) else { return .truncated }
        let descriptor = bytes[i]
        i += 1
        guard descriptor & 0x08 == 0 else { return .invalid }   // reserved bit
        let singleSegment = descriptor & 0x20 != 0
        let checksum = descriptor & 0x04 != 0
        let dictionaryBytes = [0, 1, 2, 4][Int(descriptor & 0x03)]
        let contentSizeBytes: Int
        switch descriptor >> 6 {
        case 0: contentSizeBytes = singleSegment ? 1 : 0
        case 1: contentSizeBytes = 2
        case 2: contentSizeBytes = 4
        default: contentSizeBytes = 8
        }
        let headerRest = (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes
        guard need(headerRest) else { return .truncated }
        i += headerRest
        while true {
            guard need(3) else { return .truncated }
            let header = little(i, 3)
            i += 3
            let last = header & 1 == 1
            let size = Int(header >> 3)
            switch (header >> 1) & 3 {
            case 0, 2: // raw, compressed
                guard need(size) else { return .truncated }
                i += size
            case 1: // RLE: one byte
                guard need(1) else { return .truncated }
                i += 1
            default:
                return .invalid
            }
            if last { break }
        }
        if checksum {
            guard need(4) else { return .truncated }
            i += 4
        }
        return .complete(i - offset)
    }
}
