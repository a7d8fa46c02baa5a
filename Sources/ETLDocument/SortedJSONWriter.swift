/// JSON written as Foundation's `JSONEncoder` writes it with `.sortedKeys` (with or without
/// `.withoutEscapingSlashes`), byte for byte, for the few files etl writes per store (the
/// batch manifest's lines, the checkpoint): that encoder spends hundreds of thousands of
/// instructions a file, most of it the Swift runtime looking up types and conformances
/// for its generic containers.
///
/// Its rules: an object's keys sorted by their UTF-8 bytes; integers in decimal; doubles as
/// their `description` less a trailing ".0" (a double that is not finite cannot be
/// written: `finite` turns false, and the caller leaves that file to `JSONEncoder`, which
/// says why); strings with `"`, `\`, and control characters escaped (`\b \f \n \r \t`, else
/// `\u00XX` in lower-case hex), `/` as `\/` unless slashes are left as they are, everything
/// else as it is. Whoever writes a type with it writes each field as the synthesized
/// `Codable` would (an optional left out when nil), and tests it against `JSONEncoder`.
public struct SortedJSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// False once a double that is not finite was asked for.
    public private(set) var finite = true
    /// Whether `/` is written `\/` (`JSONEncoder` without `.withoutEscapingSlashes`).
    public let escapingSlashes: Bool

    public init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
    }

    public mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case UInt8(ascii: "/") where escapingSlashes: bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00...0x1F:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hex(byte >> 4), Self.hex(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func number<Number: FixedWidthInteger>(_ number: Number) {
        bytes.append(contentsOf: String(number).utf8)
    }

    /// `description`, a trailing ".0" left out (1.0 → 1; 1e+20 stays).
    public mutating func double(_ number: Double) {
        guard number.isFinite else {
            finite = false
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func array<Element>(_ elements: [Element], _ write: (inout SortedJSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An object of the members `build` adds, in sorted order.
    public mutating func object(_ build: (inout Members) -> Void) {
        var members = Members(escapingSlashes: escapingSlashes)
        build(&members)
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in members.members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(member.key)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: member.value)
        }
        bytes.append(UInt8(ascii: "}"))
        finite = finite && members.finite
    }

    /// A dictionary of counts, as an object.
    public mutating func counts<Number: FixedWidthInteger>(_ counts: [String: Number]) {
        object { members in
            for (key, count) in counts { members.add(key, count) }
        }
    }

    /// The members of one object, each value written as it is added.
    public struct Members {
        fileprivate let escapingSlashes: Bool
        fileprivate var members: [(key: String, value: [UInt8])] = []
        fileprivate var finite = true

        fileprivate init(escapingSlashes: Bool) {
            self.escapingSlashes = escapingSlashes
        }

        public mutating func add(_ key: String, _ write: (inout SortedJSONWriter) -> Void) {
            var value = SortedJSONWriter(escapingSlashes: escapingSlashes)
            write(&value)
            finite = finite && value.finite
            members.append((key, value.bytes))
        }

        /// Left out when nil, as the synthesized `encode(to:)` leaves out an optional.
        public mutating func add(_ key: String, _ text: String?) {
            guard let text else { return }
            add(key) { $0.string(text) }
        }

        public mutating func add<Number: FixedWidthInteger>(_ key: String, _ number: Number?) {
            guard let number else { return }
            add(key) { $0.number(number) }
        }

        public mutating func add(_ key: String, _ number: Double) {
            add(key) { $0.double(number) }
        }

        public mutating func add(_ key: String, _ value: Bool?) {
            guard let value else { return }
            add(key) { $0.bool(value) }
        }

        public mutating func add(_ key: String, _ texts: [String]?) {
            guard let texts else { return }
            add(key) { $0.array(texts) { $0.string($1) } }
        }
    }

    private static func hex(_ digit: UInt8) -> UInt8 {
        digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
    }
}
