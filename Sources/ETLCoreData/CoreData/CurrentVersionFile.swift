import Foundation
import ETLDocument
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A model bundle's `.xccurrentversion`: the property list whose `_XCCurrentVersionName`
/// names the current version. Xcode writes it as an XML property list:
///
///     <plist version="1.0"><dict>
///         <key>_XCCurrentVersionName</key><string>Model 2.xcdatamodel</string>
///     </dict></plist>
///
/// The file comes with the bundle, from whoever sent it, so it is read as the models and
/// mapping models are (`UntrustedXML`, reading only this key), or as a
/// binary property list by etl's own reader — never by Foundation's property-list reader,
/// which crashes on some crafted files (see `CoreDataMetadata.decode`).
enum CurrentVersionFile {
    /// Larger than any `.xccurrentversion` Xcode writes by far.
    static let maximumBytes = 64 * 1024

    /// `_XCCurrentVersionName` of the file at `file`.
    static func versionName(file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DocumentError(file: file, line: 0, column: 0, path: "/", message: "cannot read .xccurrentversion")
        }
        guard data.count <= maximumBytes else {
            throw DocumentError(file: file, line: 0, column: 0, path: "/",
                                message: "\(data.count) bytes, more than any .xccurrentversion holds (at most \(maximumBytes))")
        }
        let name = data.starts(with: Array("bplist00".utf8)) ? try binary(data, file: file) : try xml(data, file: file)
        guard let name, !name.isEmpty else {
            throw DocumentError(file: file, line: 0, column: 0, path: "/_XCCurrentVersionName",
                                message: "the property list has no _XCCurrentVersionName string")
        }
        return name
    }

    private static func binary(_ data: Data, file: String) throws -> String? {
        let value: PropertyListValue
        do { value = try BinaryPropertyList.read([UInt8](data)) } catch {
            throw DocumentError(file: file, line: 0, column: 0, path: "/", message: "not a property list: \(error)")
        }
        guard case .dictionary(let top) = value, case .string(let name)? = top["_XCCurrentVersionName"] else { return nil }
        return name
    }

    private static func xml(_ data: Data, file: String) throws -> String? {
        let reader = Reader()
        if let malformed = try UntrustedXML.parse(data, file: file, with: reader) {
            throw malformed.error("not a property list: not well-formed XML (XML error \(malformed.code ?? 0))")
        }
        guard reader.sawPlist else {
            throw DocumentError(file: file, line: 1, column: 1, path: "/", message: "not a property list: no <plist> element")
        }
        return reader.name
    }

    /// Reads the `<string>` after `<key>_XCCurrentVersionName</key>` in the top `<dict>`.
    private final class Reader: NSObject, XMLParserDelegate {
        var sawPlist = false
        var name: String?
        private var path: [String] = []
        private var text = ""
        private var lastKey: String?

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if path.isEmpty, element == "plist" { sawPlist = true }
            path.append(element)
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            // Only the top dictionary's own entries: plist > dict > (key | value).
            if path.count == 3, path[0] == "plist", path[1] == "dict" {
                if element == "key" {
                    lastKey = text
                } else {
                    if lastKey == "_XCCurrentVersionName", element == "string", name == nil { name = text }
                    lastKey = nil
                }
            }
            path.removeLast()
            text = ""
        }
    }
}
