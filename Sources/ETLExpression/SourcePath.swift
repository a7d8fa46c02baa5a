import ETLModel

/// Where a key path starts: `$source` (the row being migrated) or `$item` (the current
/// element of a forEach).
public enum PathRoot: Sendable, Hashable {
    case source, item
}

/// A key path read by an expression, such as `$source.book.title`: the root followed by
/// zero or more names. Every name but the last is a to-one relationship; the last may be
/// an attribute, a to-one or a to-many relationship. No segments: the row's own key.
public struct SourcePath: Sendable, Hashable, CustomStringConvertible {
    public var root: PathRoot
    public var segments: [String]

    public init(root: PathRoot, segments: [String] = []) {
        self.root = root
        self.segments = segments
    }

    /// "$source.book.title", "$item".
    public var description: String {
        ([root == .source ? "$source" : "$item"] + segments).joined(separator: ".")
    }
}

extension ExpressionScope {
    /// The type of a key path, resolved against the source model. Every segment but the
    /// last must be a to-one relationship; the last may be an attribute (its value type),
    /// a to-one relationship (`sourceRow`) or a to-many relationship (`sourceRows`).
    func resolve(_ root: PathRoot, _ segments: [Syntax.Segment], column: Int) throws(ExpressionError) -> ExprType {
        let start: String
        switch root {
        case .source:
            start = source
        case .item:
            guard let item else {
                throw ExpressionError(message: "$item is only available inside a forEach", column: column)
            }
            start = item
        }
        guard sourceModel.entity(named: start) != nil else {
            throw ExpressionError(message: "unknown entity '\(start)' in the source model", column: column)
        }
        var entity = start
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            if let attribute = sourceModel.attribute(segment.name, of: entity) {
                if isLast { return ExprType(attribute.type) }
                throw ExpressionError(
                    message: "'\(segment.name)' of \(entity) is an attribute; only to-one relationships can be followed with '.'",
                    column: segments[position + 1].column)
            }
            if let relationship = sourceModel.relationship(segment.name, of: entity) {
                if isLast {
                    return relationship.isToMany ? .sourceRows(relationship.destination) : .sourceRow(relationship.destination)
                }
                if relationship.isToMany {
                    throw ExpressionError(
                        message: "'\(segment.name)' of \(entity) is a to-many relationship; only to-one relationships can be followed with '.'",
                        column: segments[position + 1].column)
                }
                entity = relationship.destination
                continue
            }
            let attributes = sourceModel.attributes(of: entity).map(\.name)
            let relationships = sourceModel.relationships(of: entity).map(\.name)
            let candidates = isLast ? attributes + relationships : relationships
            let suggestion = closestName(to: segment.name, among: candidates)
            let kind = !isLast || suggestion.map(relationships.contains) == true ? "relationship" : "attribute"
            let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            throw ExpressionError(message: "unknown \(kind) '\(segment.name)' of \(entity)\(hint)", column: segment.column)
        }
        return .sourceRow(start)
    }
}
