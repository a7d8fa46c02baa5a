import Foundation
import ETLDocument

/// Xcode writes its model and mapping-model XML in UTF-8, with no processing instruction
/// but the XML declaration. swift-corelibs-foundation's `XMLParser` traps on an element or
/// attribute name that is not valid UTF-8 (libxml2 recovers and hands the bytes on), and
/// crashes on a processing instruction without data (`<?name?>`: it reads the null data
/// pointer as a string): such a file is refused here first, naming the place.
enum XMLEncodingCheck {
    /// Both checks, before `XMLParser` sees `data`.
    static func requireReadable(_ data: Data, file: String) throws {
        try requireUTF8(data, file: file)
        try requireNoProcessingInstruction(data, file: file)
    }

    /// Any `<?` but the declaration at the very start (`<?xml …?>`).
    static func requireNoProcessingInstruction(_ data: Data, file: String) throws {
        let bytes = [UInt8](data)
        var offset = 0
        while let found = bytes[offset...].firstIndex(of: UInt8(ascii: "<")) {
            offset = found + 1
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "?") else { continue }
            if found == 0, bytes.count >= 6, Array(bytes[0..<6]) == Array("<?xml ".utf8) { continue }
            throw DocumentError(file: file, line: line(of: found, in: bytes), column: column(of: found, in: bytes), path: "/",
                                message: "a processing instruction at byte \(found): Xcode writes none but the XML declaration, and this XML reader cannot read one")
        }
    }

    private static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    private static func column(of offset: Int, in bytes: [UInt8]) -> Int {
        offset - (bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
    }

    static func requireUTF8(_ data: Data, file: String) throws {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return
            case .error:
                let before = data.prefix(offset)
                let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
                let column = offset - (before.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 } ?? 0) + 1
                throw DocumentError(file: file, line: line, column: column, path: "/",
                                    message: "not UTF-8 at byte \(offset) (Xcode writes its XML in UTF-8)")
            }
        }
    }
}
