/// The version a store is at, and why.
public struct DetectedVersion: Sendable, Equatable {
    public enum Evidence: Sendable, Equatable {
        /// The tables and columns match this version only.
        case schema
        /// The tables and columns match, and so do the store's version hashes.
        case schemaAndVersionHashes
    }

    public var version: String
    public var evidence: Evidence
    /// Every version whose schema matches the store exactly.
    public var schemaMatches: [String]
    /// Every version whose reference hashes equal the store's.
    public var hashMatches: [String]
}
