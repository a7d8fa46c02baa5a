import ETLDocument
import ETLExpression
/// A mapping model translated into a pipeline step: what a bundle pipeline's `{ "from",
/// "to", "mappingModel" }` step runs (the planner takes its mappings as they are, each part
/// with its place in the mapping model, `MappingModelPlace`), and what `etl mapping show`
/// prints (`json()`).
public struct ImportedStep: Sendable, Equatable {
    /// The step's name in progress and summary: the mapping model's file name.
    public var name: String
    /// The bundle versions the step goes between.
    public var from: String
    public var to: String
    public var mappings: [ImportedMapping]
    /// What the translation left out, and why (mappings that make no rows, relationships
    /// set from their inverse side, user info): said by `etl mapping show` on stderr.
    public var notes: [String]

    /// The step as pipeline JSON (format 1, a bundle pipeline's step), for the user to read
    /// or to take over: what `etl mapping show` prints. A run does not read it back.
    public func json() -> String {
        PipelineWriter.json(pipelineValue) + "\n"
    }

    /// The step as a pipeline value: its name and versions on the first line, each mapping
    /// on lines of its own.
    public var pipelineValue: PipelineValue {
        typealias Step = PipelineFormat.Step
        return .members([Step.name: .string(name), Step.from: .string(from), Step.to: .string(to),
                        Step.mappings: .list(mappings.map(\.pipelineValue), .lines())], .lines(head: 3))
    }

    /// Several mapping models of one hop (Core Data's multi-pass migration) as one step:
    /// every pass's mappings, in pass order, each named `Mapping (File)` and its lookups
    /// renamed with it, so a pass links only rows its own mappings made, as in Core Data,
    /// where each pass is a migration of its own into the same store.
    public static func passes(_ passes: [ImportedStep]) -> ImportedStep {
        var step = ImportedStep(name: passes.map(\.name).joined(separator: " + "), from: passes[0].from, to: passes[0].to,
                                mappings: [], notes: [])
        for pass in passes {
            let names = Dictionary(uniqueKeysWithValues: pass.mappings.map { ($0.name, "\($0.name) (\(pass.name))") })
            // The mapping a lookup names: `destination('Old', …)` becomes `destination('Old (File)', …)`.
            func renamed(_ expression: Syntax) -> Syntax {
                guard case .call(let function, var arguments) = expression.kind else { return expression }
                if ["destination", "destinations"].contains(function), let old = arguments.first?.stringLiteral, let new = names[old] {
                    arguments[0] = .string(new)
                }
                return Syntax(.call(function, arguments.map(renamed)))
            }
            for var m in pass.mappings {
                m.name = names[m.name]!
                m.relationships = m.relationships.map { .init(property: $0.property, value: renamed($0.value), place: $0.place) }
                step.mappings.append(m)
            }
            step.notes += pass.notes.map { "\(pass.name): \($0)" }
        }
        return step
    }
}

/// One entity mapping of an imported step, its expressions in the pipeline language.
public struct ImportedMapping: Sendable, Equatable {
    public var name: String
    public var source: String
    public var destination: String
    public var filter: String?
    public var attributes: [Assignment]
    public var relationships: [Assignment]
    /// The etl policy the mapping model's `migrationpolicyclassname` names.
    public var policy: String?
    /// The entity mapping in the file.
    public var place: MappingModelPlace

    /// Where the filter comes from: the entity mapping's source fetch.
    public var filterPlace: MappingModelPlace { place.part("source filter") }

    public struct Assignment: Sendable, Equatable {
        public var property: String
        /// The value, built as a tree from the mapping model's expression.
        public var value: Syntax
        /// The property mapping in the file (of an auto-generated value too: the mapping
        /// Xcode wrote without an expression).
        public var place: MappingModelPlace

        public init(property: String, value: Syntax, place: MappingModelPlace) {
            self.property = property
            self.value = value
            self.place = place
        }

        /// The value in the pipeline language, as a pipeline holds it.
        public var expression: String { Printer.print(value) }

        public static func == (a: Assignment, b: Assignment) -> Bool {
            a.property == b.property && a.value.isSameTree(as: b.value) && a.place == b.place
        }
    }

    /// The mapping as a pipeline value: names and entities on the first line, each other
    /// key on a line of its own, each property on a line of its own.
    var pipelineValue: PipelineValue {
        typealias Key = PipelineFormat.Mapping
        var members = [PipelineValue.Member(Key.name, .string(name)), .init(Key.source, .string(source)),
                       .init(Key.destination, .string(destination))]
        if let policy { members.append(.init(Key.policy, .string(policy))) }
        if let filter { members.append(.init(Key.filter, .string(filter))) }
        for (key, list) in [(Key.attributes, attributes), (Key.relationships, relationships)] where !list.isEmpty {
            members.append(.init(key, .strings(list.map { ($0.property, $0.expression) }, .lines())))
        }
        return .object(members, .lines(head: 3))
    }
}
