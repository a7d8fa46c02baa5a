/// No version (or more than one) fits the store.
public struct VersionDetectionError: Error, CustomStringConvertible, Sendable {
    public var store: String
    public var message: String
    /// The version with the fewest differences, when none matched.
    public var closestVersion: String?
    public var differences: SchemaDifference?

    public init(store: String, message: String, closestVersion: String? = nil, differences: SchemaDifference? = nil) {
        self.store = store
        self.message = message
        self.closestVersion = closestVersion
        self.differences = differences
    }

    public var description: String { "\(store): \(message)" }
}
