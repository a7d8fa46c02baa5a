import ETLModel

/// The entities of one mapping, as `destination()` and `destinations()` need them.
public struct MappingSignature: Sendable, Hashable {
    /// The source-model entity whose rows the mapping reads.
    public var sourceEntity: String
    /// The destination-model entity whose rows the mapping makes.
    public var destinationEntity: String

    public init(sourceEntity: String, destinationEntity: String) {
        self.sourceEntity = sourceEntity
        self.destinationEntity = destinationEntity
    }
}

/// What names mean while an expression is compiled.
public struct ExpressionScope: Sendable {
    /// The model key paths are resolved against.
    public var sourceModel: Model
    /// The entity of `$source`.
    public var source: String
    /// The entity of `$item` inside a forEach; nil where `$item` is not available.
    public var item: String?
    /// Mapping name → signature, for `destination()` and `destinations()`.
    public var mappings: [String: MappingSignature]
    /// Whether `destination()` and `destinations()` may be used (relationship expressions).
    public var allowsDestinationLookups: Bool
    /// Functions the program added, by name.
    public var functions: [String: ExpressionFunction] = [:]
    /// The model destination rows belong to: rows of several entities of one hierarchy
    /// (`coalesce(destination('A', …), destination('B', …))`) meet at their common ancestor.
    public var destinationModel: Model?

    public init(sourceModel: Model, source: String, item: String? = nil,
                mappings: [String: MappingSignature] = [:], allowsDestinationLookups: Bool = false) {
        self.sourceModel = sourceModel
        self.source = source
        self.item = item
        self.mappings = mappings
        self.allowsDestinationLookups = allowsDestinationLookups
    }
}
