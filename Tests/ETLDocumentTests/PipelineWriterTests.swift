import XCTest
@testable import ETLDocument

/// Pipeline values written as JSON: laid out as etl shows them, read back as written.
final class PipelineWriterTests: XCTestCase {
    typealias Step = PipelineFormat.Step
    typealias Mapping = PipelineFormat.Mapping

    func mapping(_ name: String, policy: String? = nil, attributes: [(name: String, text: String)], layout: PipelineValue.Layout) -> PipelineValue {
        var members = [PipelineValue.Member(Mapping.name, .string(name)), .init(Mapping.source, .string("Book")), .init(Mapping.destination, .string("Book"))]
        if let policy { members.append(.init(Mapping.policy, .string(policy))) }
        members.append(.init(Mapping.attributes, .strings(attributes, layout)))
        return .object(members, .lines(head: 3))
    }

    /// What `etl mapping show` prints: the step's head on one line, each mapping, key and
    /// property on lines of their own.
    func testAStepOnLinesOfItsOwn() {
        let step = PipelineValue.members([Step.name: .string("V1ToV2"), Step.from: .string("V1"), Step.to: .string("V2"),
                                          Step.mappings: .list([mapping("BookToBook", policy: "P", attributes: [("title", "$source.title"), ("say", #"'a "b"'"#)], layout: .lines()),
                                                                mapping("B", attributes: [("n", "1")], layout: .lines())], .lines())],
                                         .lines(head: 3))
        XCTAssertEqual(PipelineWriter.json(step), #"""
            { "name": "V1ToV2", "from": "V1", "to": "V2",
              "mappings": [
                { "name": "BookToBook", "source": "Book", "destination": "Book",
                  "policy": "P",
                  "attributes": {
                    "title": "$source.title",
                    "say": "'a \"b\"'" } },
                { "name": "B", "source": "Book", "destination": "Book",
                  "attributes": {
                    "n": "1" } }
              ] }
            """#)
    }

    /// What a refused inferred hop suggests: mappings from the start of a line, their
    /// properties on one line, inside a step on one line.
    func testASuggestedStep() {
        let step = PipelineValue.members([Step.from: .string("v1"), Step.to: .string("v2"),
                                          Step.mappings: .list([mapping("A", attributes: [("x", "1"), ("y", "2")], layout: .inline),
                                                                .members([Mapping.name: .string("B"), Mapping.attributes: .strings([])])], .lines(indent: ""))])
        XCTAssertEqual(PipelineWriter.json(step), """
            { "from": "v1", "to": "v2", "mappings": [
            { "name": "A", "source": "Book", "destination": "Book",
              "attributes": { "x": "1", "y": "2" } },
            { "name": "B", "attributes": { } }
            ] }
            """)
        XCTAssertEqual(PipelineWriter.member(PipelineFormat.Top.drop, .list([.string("Tag.color")], .inline)), #""drop": ["Tag.color"]"#)
    }

    /// Whatever the layout, the JSON reads back as the value: keys, order, strings, numbers.
    func testWrittenJSONReadsBackAsTheValue() throws {
        let odd = "quote \" backslash \\ line\nbreak tab\t nul\u{0} é 😀"
        typealias Top = PipelineFormat.Top
        let pipeline = PipelineValue.members([
            Top.format: .integer(1), Top.models: .list([.string("A.xcdatamodeld"), .string(odd)], .inline),
            Top.mappingModels: .boolean(false),
            Top.destination: .members([PipelineFormat.Store.store: .string("d.sqlite"), PipelineFormat.Destination.newStoreUUID: .boolean(true)]),
            Top.steps: .list([.members([Step.from: .string(odd), Step.mappings: .list([mapping(odd, attributes: [(odd, odd)], layout: .lines())], .lines())],
                                       .lines(head: 1))], .lines(indent: ""))])
        let node = try JSONParser.parse(Array(PipelineWriter.json(pipeline).utf8), file: "written.json")
        XCTAssertEqual(JSONValue(node), JSONValue(pipeline))
    }

    /// The writer takes what the format allows where it allows it: a key of its place, a
    /// value of its type, one of its words.
    func testValuesAreCheckedAgainstTheFormat() {
        XCTAssertTrue(PipelineWriter.fitsOnePlace(.members([Step.from: .string("v1"), Step.mappingModel: .list([.string("A"), .string("B")], .inline)])))
        XCTAssertFalse(PipelineWriter.fitsOnePlace(.members([Step.from: .string("v1"), Mapping.filter: .string("true")])), "a mapping's key in a step")
        XCTAssertFalse(PipelineWriter.fitsOnePlace(.members([Step.name: .integer(1)])), "a number for a name")
        XCTAssertFalse(PipelineWriter.fitsOnePlace(.members([PipelineFormat.Top.history: .string("keep")])), "no word of history's")
        XCTAssertTrue(PipelineWriter.fitsOnePlace(.members([PipelineFormat.Top.history: .string("carry")])))
        XCTAssertFalse(PipelineWriter.fitsOnePlace(.members([PipelineFormat.Top.steps: .list([.members([Mapping.source: .string("A")])], .inline)])),
                       "a mapping where a step goes")
        XCTAssertTrue(PipelineWriter.fitsOnePlace(.members([PipelineFormat.Top.destination: .members([PipelineFormat.Store.store: .string("d"),
                                                                                                        PipelineFormat.Destination.modelFrom: .string("s")])])))
        XCTAssertFalse(PipelineWriter.fitsOnePlace(.members([PipelineFormat.Top.source: .members([PipelineFormat.Destination.modelFrom: .string("s")])])),
                       "a destination's key in the source")
    }
}

extension JSONValue {
    /// The JSON a pipeline value stands for.
    init(_ value: PipelineValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let n): self = .number(String(n))
        case .boolean(let b): self = .bool(b)
        case .object(let members, _): self = .object(members.map { Member(key: $0.key.name, value: JSONValue($0.value)) })
        case .map(let entries, _): self = .object(entries.map { Member(key: $0.name, value: JSONValue($0.value)) })
        case .list(let elements, _): self = .array(elements.map(JSONValue.init))
        }
    }
}
