/// One key of the pipeline format: its name, where it may appear, the type of its value,
/// and its line of docs/pipeline.md's table of keys.
///
/// Every key is described once, in `PipelineFormat`; the decoder reads keys through it
/// (unknown keys and "did you mean" come from its lists), `PipelineWriter` writes values
/// named by it, and docs/pipeline.md's tables are checked against it.
public struct PipelineKey: Sendable, Hashable, CustomStringConvertible {
    /// Where in a pipeline a key may appear.
    public enum Place: String, Sendable, CaseIterable {
        /// The top level of the file.
        case pipeline
        /// `"options"`.
        case options
        /// `"source"` and `"destination"`.
        case store
        /// `"destination"` only.
        case destination
        /// An element of `"steps"`.
        case step
        /// An element of a step's `"mappings"`.
        case mapping
    }

    /// What a key's value is.
    public indirect enum ValueType: Sendable, Hashable {
        case integer
        case boolean
        case string
        /// A file or folder, relative to the pipeline's folder.
        case path
        /// A path, or a list of paths.
        case paths
        /// A folder, or `false`.
        case pathOrFalse
        /// Text in the expression language.
        case expression
        /// Names chosen by the user (destination properties) → expressions.
        case expressions
        /// One of the words.
        case choice([String])
        /// One of the words, or names chosen by the user → one of the words.
        case choiceOrMap([String])
        /// An object of the keys of `place`.
        case object(Place)
        case list(ValueType)
    }

    public let name: String
    public let place: Place
    public let type: ValueType
    /// A step's key that only a bundle pipeline's steps take (`"from"`, `"mappingModel"`).
    public let needsBundle: Bool
    /// The docs table's "required" column (nil where the table has none).
    public let required: String?
    /// The docs table's "meaning" column: keys of one place with the same `required` and
    /// `meaning`, one after the other, share a row.
    public let meaning: String

    public init(_ name: String, _ place: Place, _ type: ValueType, needsBundle: Bool = false, required: String? = nil, meaning: String) {
        self.name = name
        self.place = place
        self.type = type
        self.needsBundle = needsBundle
        self.required = required
        self.meaning = meaning
    }

    public var description: String { name }
}

extension JSONCursor {
    /// The members of an object whose keys are `keys` of the pipeline format, refusing any
    /// other (with the closest known key as a suggestion).
    public func object(_ keys: [PipelineKey]) throws -> JSONObject {
        try object(keys: keys.map(\.name))
    }
}

extension JSONObject {
    public func optional(_ key: PipelineKey) -> JSONCursor? {
        optional(key.name)
    }

    public func required(_ key: PipelineKey) throws -> JSONCursor {
        try required(key.name)
    }
}
