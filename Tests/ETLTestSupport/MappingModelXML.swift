import Foundation

/// An Xcode mapping model (`Name.xcmappingmodel/xcmapping.xml`) of a test's own, written as
/// Xcode writes one: Core Data's XML store format, a mapping model object naming its two
/// model versions and its entity mappings, each with its attribute and relationship mappings.
///
///     try MappingModelXML(source: "App/Items.xcdatamodeld/d3.xcdatamodel", destination: "App/Items.xcdatamodeld/d1.xcdatamodel",
///                         mappings: [.init("Item", filter: "seen != YES", attributes: [.init("title")])]).write(to: folder)
public struct MappingModelXML {
    /// An attribute or relationship mapping: its property, and its value expression as Xcode
    /// shows it (`$source.title`, `FUNCTION(…)`), or nil for one Xcode generates.
    public struct Property {
        public var name: String
        public var expression: String?

        public init(_ name: String, _ expression: String? = nil) {
            self.name = name
            self.expression = expression
        }
    }

    public struct EntityMapping {
        public var source: String
        public var destination: String
        /// `Undefined` (Xcode's "Copy"/auto) or `Custom`.
        public var type: String
        public var filter: String?
        public var policyClass: String?
        /// Xcode generates the expressions of the properties it leaves out.
        public var autogenerate: Bool
        public var attributes: [Property]
        public var relationships: [Property]

        /// An entity mapping of `entity` to itself, or to `destination`.
        public init(_ entity: String, to destination: String? = nil, type: String = "Undefined", filter: String? = nil, policyClass: String? = nil,
                    autogenerate: Bool = true, attributes: [Property] = [], relationships: [Property] = []) {
            self.source = entity
            self.destination = destination ?? entity
            self.type = type
            self.filter = filter
            self.policyClass = policyClass
            self.autogenerate = autogenerate
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    /// The model versions' paths as Xcode records them (`App/Items.xcdatamodeld/d1.xcdatamodel`).
    public var source: String
    public var destination: String
    public var mappings: [EntityMapping]

    public init(source: String, destination: String, mappings: [EntityMapping]) {
        self.source = source
        self.destination = destination
        self.mappings = mappings
    }

    /// Writes `xcmapping.xml` into the `Name.xcmappingmodel` folder `url` (made if missing).
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: url.appendingPathComponent("xcmapping.xml"))
    }

    /// The file's text.
    public var xml: String {
        func text(_ value: String) -> String {
            value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func attribute(_ name: String, _ type: String, _ value: String) -> String {
            "  <attribute name=\"\(name)\" type=\"\(type)\">\(text(value))</attribute>\n"
        }
        func property(_ kind: String, _ id: String, _ p: Property) -> String {
            "<object type=\"\(kind)\" id=\"\(id)\">\n" + attribute("name", "string", p.name)
                + (p.expression.map { attribute("valueexpressionstring", "string", $0) } ?? attribute("autogenerateexpression", "bool", "1"))
                + "</object>\n"
        }
        // (Xcode leaves out a to-many with no objects.)
        func references(_ name: String, _ kind: String, _ ids: [String]) -> String {
            ids.isEmpty ? "" : "  <relationship name=\"\(name)\" type=\"0/0\" destination=\"\(kind)\" idrefs=\"\(ids.joined(separator: " "))\"></relationship>\n"
        }
        var objects = ""
        for (index, m) in mappings.enumerated() {
            let attributeIDs = m.attributes.indices.map { "a\(index)_\($0)" }
            let relationshipIDs = m.relationships.indices.map { "r\(index)_\($0)" }
            objects += "<object type=\"XDDEVENTITYMAPPING\" id=\"e\(index)\">\n"
                + attribute("sourcename", "string", m.source) + attribute("destinationname", "string", m.destination)
                + attribute("mappingtypename", "string", m.type) + attribute("mappingnumber", "int16", "\(index + 1)")
                + (m.autogenerate ? attribute("autogenerateexpression", "bool", "1") : "")
                + (m.filter.map { attribute("sourcefilterpredicatestring", "string", $0) } ?? "")
                + (m.policyClass.map { attribute("migrationpolicyclassname", "string", $0) } ?? "")
                + references("attributemappings", "XDDEVATTRIBUTEMAPPING", attributeIDs)
                + references("relationshipmappings", "XDDEVRELATIONSHIPMAPPING", relationshipIDs)
                + "</object>\n"
            for (id, p) in zip(attributeIDs, m.attributes) { objects += property("XDDEVATTRIBUTEMAPPING", id, p) }
            for (id, p) in zip(relationshipIDs, m.relationships) { objects += property("XDDEVRELATIONSHIPMAPPING", id, p) }
        }
        return """
            <?xml version="1.0" standalone="no"?>
            <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
            \(attribute("sourcemodelpath", "string", source))\(attribute("destinationmodelpath", "string", destination))\
              <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="\(mappings.indices.map { "e\($0)" }.joined(separator: " "))"></relationship>
            </object>
            \(objects)</database>

            """
    }
}
