import CZlib

/// Raw deflate (RFC 1951, no zlib or gzip header: zlib's `wbits = -15`), inflated with a
/// cap on the size it may grow to: the input is untrusted (a store's `Z_MODELCACHE`), and a
/// few kilobytes of deflate can claim gigabytes.
///
///     let archive = try RawDeflate.inflate(blob, limit: ModelCache.inflatedLimit)
///     let blob = try RawDeflate.deflate(archive)   // what Core Data writes into Z_MODELCACHE
enum RawDeflate {
    struct Failure: Error, CustomStringConvertible, Sendable {
        var reason: String
        var description: String { reason }
    }

    static func inflate(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(reason: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = input
        return try input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else {
                    throw Failure(reason: "inflates to more than \(limit) bytes, the most etl reads")
                }
                output += chunk[..<produced]
                switch status {
                case Z_STREAM_END:
                    return output
                case Z_OK:
                    if produced == 0 && stream.avail_in == 0 {
                        throw Failure(reason: "the deflate stream ends early (\(output.count) bytes inflated)")
                    }
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw Failure(reason: "the deflate stream ends early (\(output.count) bytes inflated)")
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw Failure(reason: "not raw deflate: \(message)")
                }
            }
        }
    }

    /// `input` compressed as raw deflate at zlib's default level, in one call (a model
    /// archive is some kilobytes).
    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(reason: "zlib could not start deflating")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))))
        var input = input
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> Int32 in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(reason: "zlib could not deflate (error \(status))") }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
