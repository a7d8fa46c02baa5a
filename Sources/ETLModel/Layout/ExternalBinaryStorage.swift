import Foundation
import ETLStore

/// How Core Data stores a binary attribute that allows external storage: its column holds
/// `0x01` followed by the bytes (kept inline), or `0x02` followed by the ASCII UUID of a file
/// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/<UUID>` beside the store, which holds the bytes.
/// Copying the column alone copies the marker and loses the value: the engine reads the
/// real bytes through this, and writes values inline.
public enum ExternalBinaryStorage {
    /// `<folder>/.<StoreName>_SUPPORT/_EXTERNAL_DATA` of the store at `storePath`.
    public static func folder(ofStore storePath: String) -> String {
        let url = URL(fileURLWithPath: storePath)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA").path
    }

    public enum Read: Equatable {
        case bytes([UInt8])
        /// Why the column's value is not a value of the attribute (a missing file, no marker).
        case unreadable(String)
    }

    /// The value a stored column stands for. `folder`: `folder(ofStore:)` of its store.
    public static func read(_ stored: [UInt8], folder: String) -> Read {
        guard let marker = stored.first else { return .unreadable("an empty value without the 0x01/0x02 marker of external storage") }
        switch marker {
        case 0x01:
            return .bytes(Array(stored.dropFirst()))
        case 0x02:
            // The UUID's ASCII text; Core Data may end it with a NUL.
            let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else {
                return .unreadable("an external storage marker without a file name")
            }
            let file = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: file) else {
                return .unreadable("its externally stored bytes are missing: no file \(file)")
            }
            return .bytes(Array(data))
        default:
            return .unreadable("a value of \(stored.count) bytes without the 0x01/0x02 marker of external storage")
        }
    }

    /// The column value that keeps `bytes` inline.
    public static func inline(_ bytes: [UInt8]) -> SQLValue {
        .blob([0x01] + bytes)
    }
}
