import Foundation

/// Xcode writes its model and mapping-model XML in UTF-8. swift-corelibs-foundation's
/// `XMLParser` traps on an element or attribute name that is not valid UTF-8 (libxml2
/// recovers and hands the bytes on): such a file is refused here first, naming the place.
enum XMLEncodingCheck {
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
