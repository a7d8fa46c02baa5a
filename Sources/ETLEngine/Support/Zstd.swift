import CZstd

/// zstd frames with content checksums: checkpoints and reject files are written through
/// this, so a truncated or flipped byte is caught when read back, never trusted.
///
///     let frame = try Zstd.compress(Array("state".utf8))
///     let back = try Zstd.decompress(frame)
public enum Zstd {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        /// zstd could not allocate what it needed: memory ran out, not the data went bad.
        public var isOutOfMemory = false
        /// The output would have been larger than the limit asked for: the data may be
        /// whole, but is more than the caller accepts.
        public var isOverLimit = false
        public var description: String { "zstd: " + message }

        public init(message: String, isOutOfMemory: Bool = false) {
            self.message = message
            self.isOutOfMemory = isOutOfMemory
        }

        /// The failure zstd's result `code` reports.
        public init(code: Int) {
            self.init(message: String(cString: ZSTD_getErrorName(code)),
                      isOutOfMemory: ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation)
        }
    }

    /// Level 3: zstd's default, 160–380 MB/s on checkpoint-like data on these machines.
    public static func compress(_ input: [UInt8], level: Int32 = 3) throws -> [UInt8] {
        try Compressor(level: level).compress(input)
    }

    /// Compresses frames one after the other with one context: a writer of many small
    /// frames (the batch manifest's two lines a store) spares zstd making and freeing its
    /// working memory for each. Not for two threads at once.
    public final class Compressor {
        private let context: OpaquePointer

        public init(level: Int32 = 3) throws {
            guard let context = ZSTD_createCCtx() else { throw Failure(message: "cannot allocate a compression context", isOutOfMemory: true) }
            self.context = context
            do {
                try Zstd.check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level))
                try Zstd.check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1))
            } catch {
                ZSTD_freeCCtx(context)
                throw error
            }
        }

        deinit { ZSTD_freeCCtx(context) }

        /// One frame of `input`, with its content checksum.
        public func compress(_ input: [UInt8]) throws -> [UInt8] {
            var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
            let written = output.withUnsafeMutableBytes { out in
                input.withUnsafeBytes { inp in
                    ZSTD_compress2(context, out.baseAddress, out.count, inp.baseAddress, inp.count)
                }
            }
            try Zstd.check(written)
            output.removeSubrange(written...)
            return output
        }
    }

    /// Decompresses one or more frames, verifying their checksums. Refuses input that
    /// ends in the middle of a frame, and output above `limit` bytes.
    public static func decompress(_ input: [UInt8], limit: Int = 1 << 30) throws -> [UInt8] {
        guard !input.isEmpty else { throw Failure(message: "empty input") }
        guard let stream = ZSTD_createDStream() else { throw Failure(message: "cannot allocate a decompression context", isOutOfMemory: true) }
        defer { ZSTD_freeDStream(stream) }
        try check(ZSTD_initDStream(stream))
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        var remainingHint = 1
        try input.withUnsafeBytes { inp in
            var inBuffer = ZSTD_inBuffer(src: inp.baseAddress, size: inp.count, pos: 0)
            // Call until the input is consumed and a call leaves room in the output buffer
            // (a full buffer means the frame may hold more output).
            while true {
                let bufferCount = buffer.count
                let produced = try buffer.withUnsafeMutableBytes { out -> Int in
                    var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: bufferCount, pos: 0)
                    remainingHint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
                    try check(remainingHint)
                    return outBuffer.pos
                }
                output += buffer[0..<produced]
                guard output.count <= limit else {
                    var failure = Failure(message: "decompressed data larger than \(limit) bytes")
                    failure.isOverLimit = true
                    throw failure
                }
                if inBuffer.pos == inBuffer.size && produced < bufferCount { break }
            }
        }
        guard remainingHint == 0 else { throw Failure(message: "truncated frame") }
        return output
    }

    private static func check(_ code: Int) throws {
        if ZSTD_isError(code) != 0 { throw Failure(code: code) }
    }
}
