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
    /// Core Data's `allowsExternalBinaryDataStorage` (binary attributes): in the Core Data
    /// layout its column holds a marker, `0x01` + the bytes or `0x02` + the UUID of a file in
    /// `.<Store>_SUPPORT/_EXTERNAL_DATA/` (`ExternalBinaryStorage`).
    public var allowsExternalStorage = false

    public init(name: String, type: AttributeType, isOptional: Bool = true,
                defaultValue: SQLValue? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
    }
}
