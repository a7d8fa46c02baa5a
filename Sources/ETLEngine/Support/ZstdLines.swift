import Foundation
import CZstd

/// Reads a file of zstd frames holding text lines, one line at a time, in bounded memory:
/// the file in 1 MiB pieces, zstd's own window, and at most one line (`maxLine` bytes).
/// A small file that decompresses to gigabytes (a "zstd bomb") costs no more memory than
/// a short one; a line longer than `maxLine` is refused, not buffered.
///
///     try ZstdLines.read(path, maxLine: 16 << 20) { line in print(String(decoding: line, as: UTF8.self)) }
public enum ZstdLines {
    public static func read(_ path: String, maxLine: Int, _ body: ([UInt8]) throws -> Void) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw Zstd.Failure(message: "cannot open \(path)") }
        defer { try? file.close() }
        guard let stream = ZSTD_createDStream() else {
            throw Zstd.Failure(message: "out of memory: cannot allocate a decompression context", isOutOfMemory: true)
        }
        defer { ZSTD_freeDStream(stream) }
        guard ZSTD_isError(ZSTD_initDStream(stream)) == 0 else { throw Zstd.Failure(message: "cannot start decompressing") }
        // A window above 128 MiB is refused: that is zstd's own memory, set by the file.
        ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, 27)
        var line: [UInt8] = []
        var output = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        var remaining = 0
        var sawInput = false
        while true {
            let piece = file.readData(ofLength: 1 << 20)
            if piece.isEmpty { break }
            sawInput = true
            try piece.withUnsafeBytes { raw in
                var input = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
                repeat {
                    let capacity = output.count
                    let produced = try output.withUnsafeMutableBytes { out -> Int in
                        var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: capacity, pos: 0)
                        remaining = ZSTD_decompressStream(stream, &outBuffer, &input)
                        if ZSTD_isError(remaining) != 0 { throw Zstd.Failure(code: remaining) }
                        return outBuffer.pos
                    }
                    for byte in output[0..<produced] {
                        if byte == UInt8(ascii: "\n") {
                            try body(line)
                            line.removeAll(keepingCapacity: true)
                        } else {
                            guard line.count < maxLine else { throw Zstd.Failure(message: "a line longer than \(maxLine) bytes") }
                            line.append(byte)
                        }
                    }
                    if input.pos == input.size && produced < capacity { break }
                } while true
            }
        }
        guard sawInput else { throw Zstd.Failure(message: "empty input") }
        guard remaining == 0 else { throw Zstd.Failure(message: "truncated frame") }
        if !line.isEmpty { try body(line) }
    }
}
