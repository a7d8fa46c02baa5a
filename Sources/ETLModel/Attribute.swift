import ETLStore

/// One attribute of an entity (NSAttributeDescription).
public struct Attribute: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The value new rows get when a mapping gives none.
    public var defaultValue: SQLValue?
    /// The attribute's name in the previous model version (Core Data's renaming identifier).
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: changes the entity's version hash without a schema change.
    public var versionHashModifier: String?
    /// `allowsExternalBinaryDataStorage="YES"`: part of the version hash.
    public var allowsExternalBinaryDataStorage = false
    /// `preserveAfterDeletion="YES"` (kept in persistent history after a delete): part of the version hash.
    public var preservesValueInHistoryOnDeletion = false
    /// `indexed="YES"`: Core Data indexes the attribute's column (not part of the version hash).
    public var isIndexed = false
    /// The `derivationExpression` of a derived attribute (`derived="YES"`), whose version hash
    /// is not known with certainty.
    public var derivation: String?
    /// Whether the Core Data layout stores the attribute's values as markers, `0x01` + the
    /// bytes or `0x02` + the UUID of a file in `.<Store>_SUPPORT/_EXTERNAL_DATA/`
    /// (`ExternalBinaryStorage`): a binary attribute that allows external storage.
    public var allowsExternalStorage: Bool { allowsExternalBinaryDataStorage && type == .binary }

    public init(name: String, type: AttributeType, isOptional: Bool = true,
                defaultValue: SQLValue? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
    }
}
