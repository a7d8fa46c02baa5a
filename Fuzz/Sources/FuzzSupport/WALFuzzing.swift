import Foundation
import ETLEngine

extension FuzzSupport {
    /// `bytes` as a source's `-wal`: checked frame by frame (`WALCheck`). It must end in a
    /// summary that fits the input (no more committed frames than it holds, and those
    /// after its header) or in a `Damaged` error naming the file.
    public static func wal(_ bytes: [UInt8]) {
        do {
            guard let summary = try WALCheck.check(bytes: bytes, path: "fuzz.sqlite-wal") else {
                precondition(bytes.isEmpty, "a WAL of \(bytes.count) bytes read as none")
                return
            }
            let pageSize = bytes.count >= 12 ? Int(bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) : 0
            precondition(pageSize >= 512, "accepted with page size \(pageSize)")
            precondition(summary.committedFrames >= 0 && 32 + summary.committedFrames * (24 + pageSize) <= bytes.count,
                         "\(summary.committedFrames) committed frames in \(bytes.count) bytes")
        } catch let damaged as WALCheck.Damaged {
            precondition(damaged.description.hasPrefix("fuzz.sqlite-wal: "), "a refusal that does not name the file: \(damaged)")
        } catch {
            preconditionFailure("WALCheck threw \(type(of: error)): \(error)")
        }
    }
}
