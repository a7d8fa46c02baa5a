import Foundation
import ETLCoreData

/// `etl mapping port`: for each migration policy class a mapping model names, a Swift file
/// holding an etl `Policy` to fill in, which compiles against the `ETL` library as written:
/// the entity mappings it serves and their source fields by name, and one
/// `ExpressionFunction` per `FUNCTION($entityPolicy, "selector:", …)` its value
/// expressions call, its argument and result types those of the fields involved. So a port
/// starts from a file that builds, not from the docs.
///
///     let files = PolicySkeleton.files(mapping, source: v2, destination: v3)
///     files[0].name   // "V2to3MakerPolicy.swift"
public enum PolicySkeleton {
    public static func files(_ mapping: XCMappingModel, source: Model, destination: Model) -> [(name: String, text: String)] {
        var classes: [String: [XCMappingModel.EntityMapping]] = [:]
        var order: [String] = []
        for m in mapping.entityMappings {
            guard let name = m.policyName else { continue }
            if classes[name] == nil { order.append(name) }
            classes[name, default: []].append(m)
        }
        // The type (and file) name: the class's name as an identifier, told apart from the
        // others' when two become the same one.
        var used: Set<String> = []
        return order.map { name in
            var type = SwiftText.identifier(name)
            if used.contains(type.lowercased()) {
                var n = 2
                while used.contains("\(type)_\(n)".lowercased()) { n += 1 }
                type = "\(type)_\(n)"
            }
            used.insert(type.lowercased())
            return ("\(type).swift", file(name, type: type, classes[name]!, mapping, source: source, destination: destination))
        }
    }

    /// A call `FUNCTION($entityPolicy, "selector:", …)` where it was found.
    struct Call {
        var selector: String
        var arguments: [ArchivedExpression]
        var mapping: XCMappingModel.EntityMapping
        var attribute: String
        /// The call is the attribute's whole value expression.
        var isWhole: Bool
    }

    static func calls(in e: ArchivedExpression, _ m: XCMappingModel.EntityMapping, _ attribute: String, whole: Bool) -> [Call] {
        switch e {
        case .function(let operand, let selector, let arguments):
            let own = operand == .variable("entityPolicy")
                ? [Call(selector: selector, arguments: arguments, mapping: m, attribute: attribute, isWhole: whole)] : []
            return own + ([operand].compactMap { $0 } + arguments).flatMap { calls(in: $0, m, attribute, whole: false) }
        case .fetch(let request):
            return calls(in: request, m, attribute, whole: false)
        default:
            return []
        }
    }

    /// The Swift spelling of an expression type (`.string`).
    static func swift(_ type: ExprType) -> String {
        switch type {
        case .integer: return ".integer"
        case .double: return ".double"
        case .boolean: return ".boolean"
        case .date: return ".date"
        case .binary: return ".binary"
        default: return ".string"
        }
    }

    /// The names by which the rows each mapping makes are found (`destination('…', …)` in a
    /// pipeline, `row.destinations("…", …)` in `relate`): its own rows by the mapping's name,
    /// the rows of an entity its policy `creates` by "Mapping/Entity".
    static func madeRowNames(_ mappings: [XCMappingModel.EntityMapping], unmapped: [String]) -> [String] {
        var lines = ["///", "/// The rows each mapping makes are found by these names (`destination('NAME', …)`,",
                     "/// `row.destinations(\"NAME\", …)` in `relate`):"]
        for m in mappings {
            let made = [m.name] + unmapped.map { "\(m.name)/\($0)" }
            lines.append("/// - " + SwiftText.comment(made.map { "\"\($0)\"" }.joined(separator: ", ")))
        }
        if let entity = unmapped.first {
            lines += ["/// " + SwiftText.comment("No entity mapping makes " + unmapped.joined(separator: ", ") + " from source rows: if this class made them,"),
                      "/// " + SwiftText.comment("list them in `creates: [\"\(entity)\"]` and insert them in `create`; each is then found by"),
                      "/// " + SwiftText.comment("\"\(mappings[0].name)/\(entity)\" (the mapping that made it, and the entity).")]
        }
        return lines
    }

    /// The relate hook, commented out (a relate hook links row by row): Core Data's
    /// `createRelationshipsForDestinationInstance:`, for links the mapping model does not declare.
    static func relateHook(_ mappings: [XCMappingModel.EntityMapping], unmapped: [String], destination: Model) -> [String] {
        let mine = mappings[0]
        let example = unmapped.first.map { "row.destinations(\"\(mine.name)/\($0)\", [row.source.key])" }
            ?? "row.destinations(\"\(mine.name)\", [row.source.key])"
        // The relationship of the mapping's entity to the first entity only a policy makes, when it has one.
        let relationship = unmapped.first.flatMap { made in
            destination.entity(named: mine.destination ?? "")?.relationships.first { $0.destination == made }?.name
        } ?? "relationship"
        return [
            "        // relate: { row in",
            "        //     // Per destination row these mappings made (row.mapping, row.entity): links to set, by",
            "        //     // relationship name, on top of the mapping model's. E.g. the rows made from this source row:",
            "        //     //   " + SwiftText.comment("[\"\(relationship)\": try \(example)]"),
            "        //     [:]",
            "        // },",
        ]
    }

    /// - Parameters: name: the policy's name as the mapping model gives it (the key it is
    ///   registered under); type: its Swift type's name. Everything copied from the mapping
    ///   model or the models goes through `SwiftText`.
    static func file(_ name: String, type: String, _ mappings: [XCMappingModel.EntityMapping], _ mapping: XCMappingModel,
                     source: Model, destination: Model) -> String {
        let comment = SwiftText.comment, literal = SwiftText.stringLiteral
        let fileName = URL(fileURLWithPath: mapping.path).lastPathComponent
        let className = mappings[0].policyClassName ?? name
        var lines = [
            "import ETL",
            "",
            "/// `\(comment(className))`, the migration policy class of \(comment(fileName)), ported to an etl policy.",
            "/// Register it under the class's name, as the mapping model names it:",
            "///",
            "///     ETLCommand.main(policies: [\(comment(literal(name))): \(type).policy])",
            "///",
            "/// Its entity mappings (what each declares is in `output` before `create` runs, as",
            "/// `super` made it in Core Data):",
        ]
        for m in mappings {
            let declared = (m.attributes + m.relationships).map(\.name)
            lines.append("/// - " + comment("\(m.name): \(m.source ?? "?") → \(m.destination ?? "?")" + (declared.isEmpty ? "" : ", declaring \(declared.joined(separator: ", "))")))
        }
        // Destination entities no entity mapping of the mapping model makes from source rows
        // (none, or one without a source entity): only a policy can.
        let mapped = Set(mapping.entityMappings.filter { $0.source != nil }.compactMap(\.destination))
        let unmapped = destination.entities.filter { !$0.isAbstract && !mapped.contains($0.name) }.map(\.name)
        lines += madeRowNames(mappings, unmapped: unmapped)
        lines += ["public enum \(type) {", "    public static let policy = Policy(", "        create: { source, output in"]
        for m in mappings {
            guard let entity = m.source, source.entity(named: entity) != nil else { continue }
            let fields = source.attributes(of: entity).map { attribute -> String in
                switch ExprType(attribute.type) {
                case .string: return "source.string(\(literal(attribute.name)))"
                case .integer: return "source.integer(\(literal(attribute.name)))"
                case .double: return "source.double(\(literal(attribute.name)))"
                default: return "source[\(literal(attribute.name))]"
                }
            }
            lines.append("            // " + comment("\(m.name), a row of \(entity): " + fields.joined(separator: ", ")))
        }
        lines += [
            "            // Change output.rows[0].values[\"attribute\"], add rows with output.insert(\"Entity\", [\"attribute\": .string(…)])",
            "            // (listing the entity in `creates:`), or output.removeAll() to make no row.",
            "        },",
        ]
        lines += relateHook(mappings, unmapped: unmapped, destination: destination)
        var calls: [Call] = []
        for m in mappings {
            for p in m.attributes {
                guard let e = p.expression else { continue }
                for call in Self.calls(in: e, m, p.name, whole: true) where !calls.contains(where: { $0.selector == call.selector }) {
                    calls.append(call)
                }
            }
        }
        if calls.isEmpty {
            lines.append("        functions: [:])")
        } else {
            lines.append("        functions: [")
            for call in calls {
                let sourceEntity = call.mapping.source ?? ""
                let arguments = call.arguments.map { argument -> ExprType in
                    if let path = argument.sourceKeyPath, let attribute = source.attribute(path, of: sourceEntity) { return ExprType(attribute.type) }
                    switch argument {
                    case .constant(.integer): return .integer
                    case .constant(.real): return .double
                    case .constant(.bool): return .boolean
                    default: return .string
                    }
                }
                let result = call.isWhole ? destination.attribute(call.attribute, of: call.mapping.destination ?? "").map { ExprType($0.type) } ?? .string : .string
                lines += [
                    "            // " + comment("\(call.mapping.name).\(call.attribute): FUNCTION($entityPolicy, \"\(call.selector)\", "
                        + call.arguments.map(\.description).joined(separator: ", ") + ")"),
                    "            \(literal(call.selector)): ExpressionFunction([\(arguments.map(swift).joined(separator: ", "))], returns: \(swift(result))) { arguments in",
                    "                .null",
                    "            },",
                ]
            }
            lines.append("        ])")
        }
        lines += ["}", ""]
        return lines.joined(separator: "\n")
    }
}
