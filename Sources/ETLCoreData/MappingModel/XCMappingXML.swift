import Foundation
import ETLDocument
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The objects of an `xcmapping.xml`: Core Data's XML store format, in which Xcode keeps
/// a mapping model as objects of its own editing model (`XDDEVMAPPINGMODEL`,
/// `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING`, `XDDEVRELATIONSHIPMAPPING`), each with
/// attributes (`<attribute name= type=>text</attribute>`, binary ones in base64) and
/// relationships to other objects by id (`<relationship name= idrefs="z1 z2">`).
///
/// Only the shape is read here; `XCMappingModel` gives it meaning.
struct XCMappingXML {
    struct Object {
        var type: String
        var id: String
        var line: Int
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]
    }

    var objects: [String: Object]

    static func read(_ data: Data, file: String) throws -> XCMappingXML {
        let reader = Reader()
        if let malformed = try UntrustedXML.parse(data, file: file, with: reader) {
            throw malformed.error("not a well-formed xcmapping.xml (XML error \(malformed.code ?? 0))")
        }
        guard reader.sawDatabase else {
            throw DocumentError(file: file, line: 1, column: 1, path: "/",
                                message: "not an Xcode mapping model: no <database> element (expected Core Data's XML store format)")
        }
        var objects: [String: Object] = [:]
        for object in reader.objects {
            guard objects[object.id] == nil else {
                throw DocumentError(file: file, line: object.line, column: 1, path: "/database/object[@id='\(object.id)']",
                                    message: "two objects have the id \(object.id)")
            }
            objects[object.id] = object
        }
        return XCMappingXML(objects: objects)
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var objects: [Object] = []
        var sawDatabase = false
        private var current: Object?
        private var attributeName: String?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch name {
            case "database": sawDatabase = true
            case "object":
                current = Object(type: attributes["type"] ?? "", id: attributes["id"] ?? "", line: parser.lineNumber)
            case "attribute" where current != nil:
                attributeName = attributes["name"]
                text = ""
            case "relationship" where current != nil:
                if let relationship = attributes["name"] {
                    current?.relationships[relationship] = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                }
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if attributeName != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "attribute":
                if let attributeName { current?.attributes[attributeName] = text }
                attributeName = nil
            case "object":
                if let current { objects.append(current) }
                current = nil
            default: break
            }
        }
    }
}
