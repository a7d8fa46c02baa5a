import ETLDocument

/// Where a part of an imported step was written in its mapping model: the `xcmapping.xml`,
/// the line of the object (an entity mapping, or an attribute or relationship mapping of
/// it), and which object that is. What the import refuses is said there, and so is what
/// the planner refuses later in the step the import made (an expression's types, say).
public struct MappingModelPlace: Sendable, Equatable {
    /// The `xcmapping.xml`, as `XCMappingModel.file` names it.
    public var file: String
    public var line: Int
    /// "entity mapping PersonToPerson", or "entity mapping PersonToPerson, attribute firstName".
    public var path: String

    public init(file: String, line: Int, path: String) {
        self.file = file
        self.line = line
        self.path = path
    }

    /// The place of the entity mapping `m` of the file, or of its `property` mapping
    /// (`kind`: "attribute", "relationship").
    init(_ mapping: XCMappingModel, _ m: XCMappingModel.EntityMapping, _ property: XCMappingModel.PropertyMapping? = nil, kind: String = "") {
        self.init(file: mapping.file, line: property?.line ?? m.line,
                  path: "entity mapping \(m.name)" + (property.map { ", \(kind) \($0.name)" } ?? ""))
    }

    /// A part of this object that has no object of its own (an entity mapping's source filter).
    public func part(_ name: String) -> MappingModelPlace {
        MappingModelPlace(file: file, line: line, path: "\(path), \(name)")
    }

    public func error(_ message: String) -> DocumentError {
        DocumentError(file: file, line: line, column: 1, path: path, message: message)
    }
}
