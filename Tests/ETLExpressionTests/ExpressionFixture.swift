import ETLModel
import ETLExpression

// The expression tests' model, shared by every Expression*Tests file and by the expression
// fuzzer and RandomizedInputTests: Fuzz/Sources/FuzzSupport/ExpressionFixture.swift and
// Tests/ETLPipelineTests/ExpressionFixture.swift are links to this file (the fuzz
// package cannot depend on a test target), so it imports no test module and uses public API only.

/// Book(title, price, pages, published, cover; author → Author, users →> User),
/// Author(name; books →> Book), User(name).
enum ExpressionFixture {
    static let model = Model(version: "v1", entities: [
        Entity(name: "Book", attributes: [
            Attribute(name: "title", type: .string),
            Attribute(name: "price", type: .double),
            Attribute(name: "pages", type: .integer32),
            Attribute(name: "published", type: .date),
            Attribute(name: "cover", type: .binary),
        ], relationships: [
            Relationship(name: "author", destination: "Author", inverse: "books"),
            Relationship(name: "users", destination: "User", isToMany: true),
        ]),
        Entity(name: "Author", attributes: [Attribute(name: "name", type: .string)],
               relationships: [Relationship(name: "books", destination: "Book", inverse: "author", isToMany: true)]),
        Entity(name: "User", attributes: [Attribute(name: "name", type: .string)]),
    ])

    static let mappings: [String: MappingSignature] = [
        "Authors": MappingSignature(sourceEntity: "Author", destinationEntity: "Writer"),
        "Users": MappingSignature(sourceEntity: "User", destinationEntity: "Person"),
        "Books": MappingSignature(sourceEntity: "Book", destinationEntity: "Volume"),
    ]

    static func scope(source: String = "Book", item: String? = nil, lookups: Bool = false) -> ExpressionScope {
        ExpressionScope(sourceModel: model, source: source, item: item, mappings: mappings,
                        allowsDestinationLookups: lookups)
    }

    static func path(_ text: String) -> SourcePath {
        var parts = text.split(separator: ".").map(String.init)
        let root: PathRoot = parts.removeFirst() == "$item" ? .item : .source
        return SourcePath(root: root, segments: parts)
    }
}
