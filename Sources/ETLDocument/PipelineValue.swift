/// A pipeline, or a part of one (a step, a mapping), as a value to write: its members named
/// by the format's keys (`PipelineFormat`), never by hand. `PipelineWriter` writes it as JSON.
public indirect enum PipelineValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    /// Keys of the format → values, in the order written.
    case object([Member], Layout)
    /// Names chosen by the user (destination properties, relationships) → values.
    case map([Entry], Layout)
    case list([PipelineValue], Layout)

    public struct Member: Sendable, Equatable {
        public var key: PipelineKey
        public var value: PipelineValue

        public init(_ key: PipelineKey, _ value: PipelineValue) {
            self.key = key
            self.value = value
        }
    }

    public struct Entry: Sendable, Equatable {
        public var name: String
        public var value: PipelineValue

        public init(_ name: String, _ value: PipelineValue) {
            self.name = name
            self.value = value
        }
    }

    /// How an object, map or list is laid out for people to read; JSON readers ignore it.
    public enum Layout: Sendable, Equatable {
        /// On one line: `{ "a": 1, "b": 2 }`, `["x", "y"]`.
        case inline
        /// The first `head` members on the opening line, each other member (or element) on
        /// a line of its own, `indent` deeper than the line the value starts on.
        case lines(head: Int = 0, indent: String = "  ")
    }

    /// An object of `members`, in this order.
    public static func members(_ members: KeyValuePairs<PipelineKey, PipelineValue>, _ layout: Layout = .inline) -> PipelineValue {
        .object(members.map { Member($0.key, $0.value) }, layout)
    }

    /// A map of user-chosen names to strings (a mapping's attributes: name → expression).
    public static func strings(_ entries: [(name: String, text: String)], _ layout: Layout = .inline) -> PipelineValue {
        .map(entries.map { Entry($0.name, .string($0.text)) }, layout)
    }
}
