import Foundation
import ETLDocument

/// An Xcode mapping model (`Name.xcmappingmodel`, Core Data's `NSMappingModel` as Xcode
/// keeps it): the entity mappings of one hop between two model versions, each with its
/// property mappings as archived `NSExpression`s, read from `xcmapping.xml`.
///
///     let mapping = try XCMappingModel.load(path: "V2toV3.xcmappingmodel")
///     mapping.sourceVersion                 // "SampleModel2"
///     mapping.entityMappings.map(\.name)    // ["CarToCar", "LuxuryCarToLuxuryCar", …]
///
/// Nothing is translated here (see `MappingModelImport`); what the file holds that etl does
/// not know (an attribute of an entity or property mapping it does not read, an expression
/// that is not a keyed archive) is refused here, naming the file, line and object.
public struct XCMappingModel: Sendable {
    /// The `.xcmappingmodel` folder (or the xml file) as given, and the xml file.
    public var path: String
    public var file: String
    /// The model versions the mapping model was made between, as Xcode recorded them
    /// (`…/Name.xcdatamodeld/Version.xcdatamodel`), and the version names they end in.
    public var sourceModelPath: String
    public var destinationModelPath: String
    public var sourceVersion: String { Self.versionName(sourceModelPath) }
    public var destinationVersion: String { Self.versionName(destinationModelPath) }
    /// In the order Core Data runs them (`mappingnumber`).
    public var entityMappings: [EntityMapping]
    /// The two models as Xcode archived them when the mapping model was made
    /// (`sourcemodeldata`, `destinationmodeldata`; see `ArchivedDesignModel`), when it did.
    public var sourceModelArchive: [UInt8]?
    public var destinationModelArchive: [UInt8]?

    public struct EntityMapping: Sendable {
        /// The mapping's name: `name` when Xcode wrote one, else `SourceToDestination`.
        public var name: String
        public var source: String?
        public var destination: String?
        /// `mappingtypename` as written: Undefined, Custom, Add, Remove, Copy, Transform.
        public var typeName: String
        public var number: Int
        /// `migrationpolicyclassname`: `Module.ClassName` or `REPLACE_AT_RUNTIME.ClassName`.
        public var policyClassName: String?
        public var autogenerates: Bool
        /// The fetch request's predicate (`sourcefilterpredicatestring`, or the predicate of
        /// a `sourceexpressiondata` fetch expression); nil or TRUEPREDICATE: every row.
        public var sourcePredicate: String?
        /// A source expression that is not the default fetch, for the refusal to name.
        public var sourceExpression: ArchivedExpression?
        public var userInfo: [String: ArchivedValue]
        public var attributes: [PropertyMapping]
        public var relationships: [PropertyMapping]
        public var line: Int

        /// The class name without its module (`V2to3MakerPolicy`): the name an etl policy is
        /// registered under.
        public var policyName: String? {
            policyClassName.map { name in name.split(separator: ".").last.map(String.init) ?? name }
        }
    }

    public struct PropertyMapping: Sendable {
        public var name: String
        /// The decoded value expression; nil when Xcode wrote none.
        public var expression: ArchivedExpression?
        public var autogenerates: Bool
        public var userInfo: [String: ArchivedValue]
        public var line: Int
        /// A relationship mapping set by Xcode's "Key Path" and "Mapping Name" fields instead
        /// of a value expression (`sourcekeypath`: `$source.country.continent`;
        /// `sourcemappingname`: the entity mapping whose rows it links to).
        public var sourceKeyPath: String? = nil
        public var sourceMappingName: String? = nil
    }

    static let entityMappingAttributes: Set<String> = [
        "name", "sourcename", "destinationname", "mappingtypename", "mappingnumber", "migrationpolicyclassname",
        "autogenerateexpression", "sourceexpressiondata", "sourceexpressionstring", "sourcefilterpredicatestring", "userinfodata",
    ]
    static let propertyMappingAttributes: Set<String> = [
        "name", "valueexpressiondata", "valueexpressionstring", "autogenerateexpression", "userinfodata",
        "sourcekeypath", "sourcemappingname",
    ]
    /// The selector of Core Data's default source fetch.
    static let defaultFetch = "fetchRequestForSourceEntityNamed:predicateString:"

    /// The model bundle the recorded model paths name (`…/Name.xcdatamodeld/…`), looked for
    /// where a project keeps it: beside the mapping model, or in a folder above it.
    public func findModelBundle() -> String? {
        guard let bundle = sourceModelPath.split(separator: "/").last(where: { $0.hasSuffix(".xcdatamodeld") }) else { return nil }
        var folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(String(bundle))
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
            guard folder.path != "/" else { break }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// The text of a string attribute as Xcode meant it: Xcode writes a character XML
    /// would have to escape (`<`, `>`, `&`) as `\u` and the four hex digits of its UTF-16
    /// code unit, low byte first (`messageID \u3c00 10000` is `messageID < 10000`).
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\u") else { return text }
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\", i + 5 < scalars.count, scalars[i + 1] == "u",
               let low = UInt8(String(String.UnicodeScalarView(scalars[(i + 2)..<(i + 4)])), radix: 16),
               let high = UInt8(String(String.UnicodeScalarView(scalars[(i + 4)..<(i + 6)])), radix: 16),
               let scalar = Unicode.Scalar(UInt16(high) << 8 | UInt16(low)) {
                out.append(scalar)
                i += 6
            } else {
                out.append(scalars[i])
                i += 1
            }
        }
        return String(out)
    }

    static func versionName(_ modelPath: String) -> String {
        let last = modelPath.split(separator: "/").last.map(String.init) ?? modelPath
        return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
    }

    /// The `xcmapping.xml` of a `Name.xcmappingmodel` folder (a file path is itself).
    public static func xmlFile(of path: String) -> String {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        // Built by hand, not through URL: errors name the file as the user gave it.
        return exists && !isDirectory.boolValue ? path : (path.hasSuffix("/") ? path : path + "/") + "xcmapping.xml"
    }

    /// Reads `Name.xcmappingmodel` (the folder) or its `xcmapping.xml`.
    public static func load(path: String) throws -> XCMappingModel {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "/", message: "no such mapping model (expected a Name.xcmappingmodel folder)")
        }
        let file = xmlFile(of: path)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DocumentError(file: file, line: 0, column: 0, path: "/", message: "cannot read the mapping model's xcmapping.xml (missing or not readable)")
        }
        return try read(data, path: path, file: file)
    }

    static func read(_ data: Data, path: String, file: String) throws -> XCMappingModel {
        let xml = try XCMappingXML.read(data, file: file)
        func failure(_ object: XCMappingXML.Object, _ place: String, _ message: String) -> DocumentError {
            DocumentError(file: file, line: object.line, column: 1, path: place, message: message)
        }
        let roots = xml.objects.values.filter { $0.type == "XDDEVMAPPINGMODEL" }
        guard roots.count == 1, let root = roots.first else {
            throw DocumentError(file: file, line: 1, column: 1, path: "/",
                                message: "expected one XDDEVMAPPINGMODEL object, found \(roots.count): is this an Xcode mapping model?")
        }
        func string(_ object: XCMappingXML.Object, _ name: String) -> String? {
            object.attributes[name].map { unescaped($0).trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func archive(_ object: XCMappingXML.Object, _ name: String, place: String) throws -> ArchivedValue? {
            guard let text = object.attributes[name] else { return nil }
            guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw failure(object, place, "\(name) is not base64")
            }
            do {
                return try KeyedArchive.root(of: Array(bytes))
            } catch {
                throw DocumentError(file: file, line: object.line, column: 1, path: place, message: "\(name): \(error)")
            }
        }
        func expression(_ object: XCMappingXML.Object, _ prefix: String, place: String) throws -> ArchivedExpression? {
            if let value = try archive(object, "\(prefix)data", place: place) {
                do { return try ArchivedExpression.decode(value) } catch { throw failure(object, place, "\(prefix)data: \(error)") }
            }
            guard let text = string(object, "\(prefix)string") else { return nil }
            do { return try ExpressionFormat.parse(text) } catch { throw failure(object, place, "\(prefix)string \"\(ExpressionFormat.excerpt(text))\": \(error)") }
        }
        func userInfo(_ object: XCMappingXML.Object, place: String) throws -> [String: ArchivedValue] {
            guard let value = try archive(object, "userinfodata", place: place) else { return [:] }
            guard case .dictionary(let d) = value else { throw failure(object, place, "userinfodata is not a dictionary") }
            return d
        }
        func objects(_ ids: [String]?, type: String, from owner: XCMappingXML.Object, place: String) throws -> [XCMappingXML.Object] {
            try (ids ?? []).map { id in
                guard let object = xml.objects[id], object.type == type else {
                    throw failure(owner, place, "refers to \(id), which is not an \(type) object of the file")
                }
                return object
            }
        }

        var mappings: [EntityMapping] = []
        for object in try objects(root.relationships["entitymappings"], type: "XDDEVENTITYMAPPING", from: root, place: "/database/object[@id='\(root.id)']") {
            let source = string(object, "sourcename"), destination = string(object, "destinationname")
            let name = string(object, "name") ?? ((source != nil && destination != nil) ? "\(source!)To\(destination!)" : destination ?? source ?? object.id)
            let place = "entity mapping \(name)"
            for key in object.attributes.keys.sorted() where !entityMappingAttributes.contains(key) {
                throw failure(object, place, "attribute '\(key)' of an entity mapping is not one etl reads (it reads: \(entityMappingAttributes.sorted().joined(separator: ", ")))")
            }
            var predicate = string(object, "sourcefilterpredicatestring")
            var custom: ArchivedExpression?
            if let fetch = try expression(object, "sourceexpression", place: place) {
                // Core Data's default fetch, perhaps with a predicate, is what a filter says;
                // any other source expression is kept to be refused by name.
                if case .fetch(.function(.variable("manager"), defaultFetch, let arguments)) = fetch, arguments.count == 2,
                   case .constant(.string(let entity)) = arguments[0], entity == source {
                    if case .constant(.string(let p)) = arguments[1] { predicate = predicate ?? p }
                    else if arguments[1] != .constant(.null) { custom = fetch }
                } else {
                    custom = fetch
                }
            }
            var properties: [[PropertyMapping]] = [[], []]
            for (k, kind) in [("attributemappings", "XDDEVATTRIBUTEMAPPING"), ("relationshipmappings", "XDDEVRELATIONSHIPMAPPING")].enumerated() {
                for p in try objects(object.relationships[kind.0], type: kind.1, from: object, place: place) {
                    guard let propertyName = string(p, "name") else { throw failure(p, place, "a property mapping without a name") }
                    let propertyPlace = "\(place), \(k == 0 ? "attribute" : "relationship") \(propertyName)"
                    for key in p.attributes.keys.sorted() where !propertyMappingAttributes.contains(key) {
                        throw failure(p, propertyPlace, "attribute '\(key)' of a property mapping is not one etl reads (it reads: \(propertyMappingAttributes.sorted().joined(separator: ", ")))")
                    }
                    properties[k].append(PropertyMapping(name: propertyName, expression: try expression(p, "valueexpression", place: propertyPlace),
                                                         autogenerates: string(p, "autogenerateexpression") == "1",
                                                         userInfo: try userInfo(p, place: propertyPlace), line: p.line,
                                                         sourceKeyPath: string(p, "sourcekeypath"),
                                                         sourceMappingName: string(p, "sourcemappingname")))
                }
            }
            mappings.append(EntityMapping(
                name: name, source: source, destination: destination,
                typeName: string(object, "mappingtypename") ?? "Undefined",
                number: Int(string(object, "mappingnumber") ?? "") ?? Int.max,
                policyClassName: string(object, "migrationpolicyclassname"),
                autogenerates: string(object, "autogenerateexpression") == "1",
                sourcePredicate: predicate, sourceExpression: custom,
                userInfo: try userInfo(object, place: place),
                attributes: properties[0], relationships: properties[1], line: object.line))
        }
        // Core Data runs entity mappings in `mappingnumber` order; the file lists them in any.
        let ordered = mappings.enumerated().sorted { ($0.element.number, $0.offset) < ($1.element.number, $1.offset) }.map(\.element)
        var seen = Set<String>()
        for m in ordered where !seen.insert(m.name).inserted {
            throw DocumentError(file: file, line: m.line, column: 1, path: "entity mapping \(m.name)", message: "two entity mappings are named \(m.name)")
        }
        func bytes(_ name: String) throws -> [UInt8]? {
            guard let text = root.attributes[name] else { return nil }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw failure(root, "/", "\(name) is not base64") }
            return Array(data)
        }
        var model = XCMappingModel(path: path, file: file,
                                   sourceModelPath: string(root, "sourcemodelpath") ?? "", destinationModelPath: string(root, "destinationmodelpath") ?? "",
                                   entityMappings: ordered)
        model.sourceModelArchive = try bytes("sourcemodeldata")
        model.destinationModelArchive = try bytes("destinationmodeldata")
        return model
    }
}
