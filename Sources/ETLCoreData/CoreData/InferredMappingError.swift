import ETLDocument

/// A change between two model versions that a lightweight (inferred) migration cannot carry
/// safely. Names the entity and property, says why, and suggests the explicit pipeline
/// mapping to write instead (JSON for a step's `mappings`, see docs/pipeline.md).
public struct InferredMappingError: Error, CustomStringConvertible, Sendable {
    public struct Problem: Sendable, Equatable {
        /// The destination entity (the source entity for a relationship to a removed entity).
        public var entity: String
        public var property: String?
        public var message: String
    }

    public var sourceVersion: String
    public var destinationVersion: String
    /// Every problem found; `entity`, `property` and `message` are the first one's.
    public var problems: [Problem]
    /// The explicit mapping(s) to write instead.
    public var suggestedMappings: [PipelineValue]
    /// The explicit mapping(s) to write instead, as pipeline JSON.
    public var suggestion: String { PipelineWriter.json(mappings: suggestedMappings) }

    public var entity: String { problems.first?.entity ?? "" }
    public var property: String? { problems.first?.property }
    public var message: String { problems.first?.message ?? "" }

    public var description: String {
        var text = "cannot infer a mapping from \(sourceVersion) to \(destinationVersion): "
        text += problems.map(\.message).joined(separator: "; ")
        if !suggestion.isEmpty { text += "\nwrite the step's mappings explicitly instead, e.g.:\n" + suggestion }
        return text
    }
}
