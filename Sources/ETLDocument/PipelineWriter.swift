/// Writes a `PipelineValue` as pipeline JSON: what etl shows for people to read or paste
/// (suggested steps, `etl mapping show`) and what it plans without a file
/// (`Migration(pipeline:file:)`). Keys are the format's names, strings `jsonStringLiteral`s.
public enum PipelineWriter {
    /// The value as JSON, its first line starting at column `indent.count`.
    public static func json(_ value: PipelineValue, indent: String = "") -> String {
        assert(fitsOnePlace(value), "members of one object belong to one place of the format: \(value)")
        switch value {
        case .string(let text):
            return jsonStringLiteral(text)
        case .integer(let number):
            return String(number)
        case .boolean(let flag):
            return flag ? "true" : "false"
        case .object(let members, let layout):
            return braces(members.map { (jsonStringLiteral($0.key.name), $0.value) }, layout, indent)
        case .map(let entries, let layout):
            return braces(entries.map { (jsonStringLiteral($0.name), $0.value) }, layout, indent)
        case .list(let elements, .inline):
            return "[" + elements.map { json($0, indent: indent) }.joined(separator: ", ") + "]"
        case .list(let elements, .lines(_, let step)):
            let inner = indent + step
            return "[" + elements.map { "\n" + inner + json($0, indent: inner) }.joined(separator: ",") + "\n" + indent + "]"
        }
    }

    /// A step's mappings as they appear inside its `"mappings"` list: one after the other,
    /// each from the start of a line.
    public static func json(mappings: [PipelineValue]) -> String {
        mappings.map { json($0) }.joined(separator: ",\n")
    }

    /// One member as it appears inside an object: `"drop": ["Tag.color"]`.
    public static func member(_ key: PipelineKey, _ value: PipelineValue) -> String {
        jsonStringLiteral(key.name) + ": " + json(value)
    }

    private static func braces(_ members: [(name: String, value: PipelineValue)], _ layout: PipelineValue.Layout, _ indent: String) -> String {
        guard !members.isEmpty else { return "{ }" }
        switch layout {
        case .inline:
            return "{ " + members.map { "\($0.name): " + json($0.value, indent: indent) }.joined(separator: ", ") + " }"
        case .lines(let head, let step):
            let inner = indent + step
            let first = members.prefix(head).map { "\($0.name): " + json($0.value, indent: indent) }.joined(separator: ", ")
            let rest = members.dropFirst(head).map { inner + "\($0.name): " + json($0.value, indent: inner) }
            return (head == 0 ? "{\n" + rest.joined(separator: ",\n") : "{ " + first + rest.map { ",\n" + $0 }.joined()) + " }"
        }
    }

    /// Whether an object's keys are all of one place (a destination's may be a store's too),
    /// and each value is of its key's type.
    static func fitsOnePlace(_ value: PipelineValue) -> Bool {
        guard case .object(let members, _) = value, let first = members.first else { return true }
        let places: Set<PipelineKey.Place> = [.store, .destination].contains(first.key.place) ? [.store, .destination] : [first.key.place]
        return members.allSatisfy { places.contains($0.key.place) && admits($0.key.type, $0.value) }
    }

    static func admits(_ type: PipelineKey.ValueType, _ value: PipelineValue) -> Bool {
        switch (type, value) {
        case (.integer, .integer), (.boolean, .boolean), (.pathOrFalse, .boolean(false)): return true
        case (.string, .string), (.path, .string), (.paths, .string), (.pathOrFalse, .string), (.expression, .string): return true
        case (.paths, .list(let elements, _)): return elements.allSatisfy { admits(.path, $0) }
        case (.expressions, .map(let entries, _)): return entries.allSatisfy { admits(.expression, $0.value) }
        case (.choice(let words), .string(let word)), (.choiceOrMap(let words), .string(let word)): return words.contains(word)
        case (.choiceOrMap(let words), .map(let entries, _)): return entries.allSatisfy { admits(.choice(words), $0.value) }
        case (.object(let place), .object(let members, _)):
            return members.allSatisfy { PipelineFormat.keys(in: place).contains($0.key) && admits($0.key.type, $0.value) }
        case (.list(let element), .list(let elements, _)): return elements.allSatisfy { admits(element, $0) }
        default: return false
        }
    }
}
