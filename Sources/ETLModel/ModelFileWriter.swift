import Foundation
import ETLStore

/// Writes a model version as a JSON model file (the format `ModelFile` reads), laid out as
/// the files in `pipelines/models` are: one line per attribute and relationship, keys
/// left out where they hold their defaults.
///
///     print(ModelFileWriter.json(try PlainModelReader.read(store, version: "v1")))
public enum ModelFileWriter {
    public static func json(_ model: Model) -> String {
        var lines = ["{", "  \"version\": \(quote(model.version)),", "  \"entities\": ["]
        for (e, entity) in model.entities.enumerated() {
            var keys = ["      \"name\": \(quote(entity.name))"]
            if let parent = entity.parent { keys.append("      \"parent\": \(quote(parent))") }
            if entity.isAbstract { keys.append("      \"abstract\": true") }
            if let renamed = entity.renamingIdentifier { keys.append("      \"renamedFrom\": \(quote(renamed))") }
            if !entity.attributes.isEmpty {
                keys.append("      \"attributes\": [\n" + entity.attributes.map { "        " + attribute($0) }.joined(separator: ",\n") + "\n      ]")
            }
            if !entity.relationships.isEmpty {
                keys.append("      \"relationships\": [\n" + entity.relationships.map { "        " + relationship($0) }.joined(separator: ",\n") + "\n      ]")
            }
            lines.append("    {\n" + keys.joined(separator: ",\n") + "\n    }" + (e < model.entities.count - 1 ? "," : ""))
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    static func attribute(_ a: Attribute) -> String {
        var keys = ["\"name\": \(quote(a.name))", "\"type\": \(quote(a.type.rawValue))"]
        if !a.isOptional { keys.append("\"optional\": false") }
        switch a.defaultValue {
        case .integer(let i)?: keys.append("\"default\": \(a.type == .boolean ? (i != 0 ? "true" : "false") : String(i))")
        case .real(let d)?: keys.append("\"default\": \(d)")
        case .text(let t)?: keys.append("\"default\": \(quote(t))")
        case .blob?, .null?, nil: break
        }
        if let renamed = a.renamingIdentifier { keys.append("\"renamedFrom\": \(quote(renamed))") }
        return "{ " + keys.joined(separator: ", ") + " }"
    }

    static func relationship(_ r: Relationship) -> String {
        var keys = ["\"name\": \(quote(r.name))", "\"destination\": \(quote(r.destination))"]
        if let inverse = r.inverse { keys.append("\"inverse\": \(quote(inverse))") }
        if r.isToMany { keys.append("\"toMany\": true") }
        if r.isOrdered { keys.append("\"ordered\": true") }
        if !r.isOptional { keys.append("\"optional\": false") }
        if let min = r.minCount { keys.append("\"minCount\": \(min)") }
        if let max = r.maxCount { keys.append("\"maxCount\": \(max)") }
        if let renamed = r.renamingIdentifier { keys.append("\"renamedFrom\": \(quote(renamed))") }
        return "{ " + keys.joined(separator: ", ") + " }"
    }

    static func quote(_ text: String) -> String { jsonStringLiteral(text) }
}
