import Foundation
import ETLDocument
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML file from whoever sent it (a model version's `contents`, a mapping model's
/// `xcmapping.xml`, a bundle's `.xccurrentversion`), read the one way: refused first where
/// `XMLParser` would trap (`XMLEncodingCheck`), then parsed with no namespaces and no
/// external entities (nothing read from outside the file) into the caller's delegate.
enum UntrustedXML {
    /// Where the parser stopped on a document that is not well-formed.
    struct Malformed {
        var file: String
        var line: Int
        var column: Int
        /// libxml2's error code, when the parser gave one.
        var code: Int?

        /// The error naming the place, with `message` (what the file is not).
        func error(_ message: String) -> DocumentError {
            DocumentError(file: file, line: line, column: column, path: "/", message: message)
        }
    }

    /// Parses `data` (the bytes of `file`) with `delegate`; nil when the document is well-formed.
    static func parse(_ data: Data, file: String, with delegate: XMLParserDelegate) throws -> Malformed? {
        try XMLEncodingCheck.requireReadable(data, file: file)
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        guard !parser.parse() else { return nil }
        return Malformed(file: file, line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1),
                         code: (parser.parserError as NSError?)?.code)
    }
}
