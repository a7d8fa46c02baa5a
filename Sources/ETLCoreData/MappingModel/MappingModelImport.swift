import ETLModel
import ETLExpression
/// Translates an Xcode mapping model into a pipeline step, against the two model
/// versions of its hop — or refuses, before any row is read, naming the file, the entity
/// mapping, the property and the expression, with the pipeline expression to write instead.
///
///     let mapping = try XCMappingModel.load(path: "V2toV3.xcmappingmodel")
///     let step = try MappingModelImport.step(mapping, source: v2, destination: v3)
///     print(step.json())
///
/// Each mapping and expression of the step keeps its place in the file
/// (`MappingModelPlace`), for what the planner refuses in it later.
///
/// What is translated:
///
/// - Entity mappings in `mappingnumber` order. One with no source entity (Add: a new entity,
///   whose rows only custom code makes) or no destination (Remove) makes no rows: it is
///   left out, with a note. Copy, Transform, Custom and Undefined mappings become mappings.
/// - The source fetch's predicate becomes `filter` (see `PredicateTranslation`).
/// - Relationship mappings set by Xcode's Key Path and Mapping Name fields (`sourcekeypath`,
///   `sourcemappingname`) are lookups through that mapping along the key path
///   (`@distinctUnionOfSets` and the like followed through); a Key Path of `$source` alone
///   is the row that mapping made from the source row: `destination('NoteToNote', $source)`.
/// - A relationship set by `FUNCTION($entityPolicy, "selector:", …)` is left to the policy's
///   `relate` hook, with a note.
/// - `migrationpolicyclassname` (`Module.ClassName`, `REPLACE_AT_RUNTIME.ClassName`)
///   becomes `"policy": "ClassName"`.
/// - A property mapping without an expression, where the mapping auto-generates them, is
///   "the same-named property of the source" (no such property: the attribute keeps its
///   default, the relationship stays empty, as in Core Data).
/// - Attribute expressions: `$source.path` (`valueForKeyPath:`, `valueForKey:`), constants,
///   `add:to:` `from:subtract:` `multiply:by:` `divide:by:` `modulus:by:`, `uppercase:`
///   `lowercase:` `length:`, `castObject:toType:` (NSString, NSNumber, NSDate) and the string
///   methods `uppercaseString` `lowercaseString` `length` `stringByAppendingString:`;
///   `SELF` as `$source`, `x.length` of a string attribute as `utf16length($source.x)` (NSString counts UTF-16 units);
///   arithmetic into an integer attribute as `integer(…)` (Core Data keeps the integer part);
///   NSNumber's semantics between Integer and Boolean attributes: a Boolean into an Integer
///   as `integer(…)` (1/0), an integer into a Boolean as `false`/`true` for 0/1, any other
///   number rejecting its row.
/// - Relationship expressions: `destinationInstancesForEntityMappingNamed:sourceInstances:`
///   and `destinationInstancesForSourceRelationshipNamed:sourceInstances:` on `$manager`,
///   as `destination(…)` (to-one) or `destinations(…)` (to-many). Source rows of several
///   mappings (sub-entities, each with its own mapping): a to-one takes the first found
///   (`coalesce`); a to-many takes them all (`union`), or is left out when each of those
///   mappings writes its inverse from the inverse source path (the same links, from the
///   other side: setting one side sets both). A to-many whose key path goes through a
///   to-many is left out in that case too, and refused otherwise.
public enum MappingModelImport {
    public static func step(_ mapping: XCMappingModel, source: Model, destination: Model) throws -> ImportedStep {
        var translation = Translation(mapping: mapping, source: source, destination: destination)
        return try translation.run()
    }

    /// The expression function `FUNCTION($entityPolicy, "selector:", …)` calls: the function
    /// the etl policy registered as `policy` has for `selector` (`Policy.functions`), named
    /// as the expression language allows (`Policy_split_with_` for `split:with:`).
    public static func policyFunctionName(policy: String, selector: String) -> String {
        policy + "_" + String(selector.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }
}

/// A relationship value found through mappings: `destination(s)('M', $source.path)`.
private struct Lookup {
    var mappings: [String]
    /// A key path of the source row ("" for the row itself).
    var path: String
}

private struct Translation {
    let mapping: XCMappingModel
    let source: Model
    let destination: Model
    var notes: [String] = []

    init(mapping: XCMappingModel, source: Model, destination: Model) {
        self.mapping = mapping
        self.source = source
        self.destination = destination
    }

    var fileName: String {
        mapping.path.split(separator: "/").last.map(String.init) ?? mapping.path
    }

    func refuse(_ m: XCMappingModel.EntityMapping, _ property: XCMappingModel.PropertyMapping?, kind: String = "",
                _ message: String) -> DocumentError {
        MappingModelPlace(mapping, m, property, kind: kind).error(message)
    }

    /// The mappings that make rows, and their entities.
    func kept() -> [XCMappingModel.EntityMapping] {
        mapping.entityMappings.filter { $0.source != nil && $0.destination != nil && !["Add", "Remove"].contains($0.typeName) }
    }

    mutating func run() throws -> ImportedStep {
        let kept = kept()
        for m in mapping.entityMappings where !kept.contains(where: { $0.name == m.name }) {
            if let policy = m.policyClassName {
                throw refuse(m, nil, "names the policy \(policy), but makes no rows (no \(m.source == nil ? "source" : "destination") entity): "
                    + "etl runs a policy per source row of a mapping; put it on the mapping whose rows it works on")
            }
            notes.append(m.source == nil
                ? "entity mapping \(m.name) adds entity \(m.destination ?? "?"): it makes no rows (custom code makes them), so it is left out"
                : "entity mapping \(m.name) removes entity \(m.source ?? "?"): its rows are dropped")
        }
        for m in kept {
            guard source.entity(named: m.source!) != nil else {
                throw refuse(m, nil, "source entity \(m.source!) is not in model \(source.version): is this the mapping model of \(source.version) → \(destination.version)?")
            }
            guard let d = destination.entity(named: m.destination!) else {
                throw refuse(m, nil, "destination entity \(m.destination!) is not in model \(destination.version): is this the mapping model of \(source.version) → \(destination.version)?")
            }
            if d.isAbstract {
                throw refuse(m, nil, "destination entity \(d.name) is abstract: its rows cannot be made")
            }
        }

        var lookups: [String: [(relationship: Relationship, lookup: Lookup, place: MappingModelPlace)]] = [:]
        var mappings: [ImportedMapping] = []
        for m in kept {
            var imported = ImportedMapping(name: m.name, source: m.source!, destination: m.destination!, filter: nil,
                                           attributes: [], relationships: [], policy: m.policyName, place: MappingModelPlace(mapping, m))
            if let custom = m.sourceExpression {
                throw refuse(m, nil, "source expression \(custom) is not Core Data's default fetch: write the step as pipeline JSON "
                    + "with a \"filter\" of your own (etl mapping show prints the rest of it)")
            }
            if let predicate = m.sourcePredicate {
                do {
                    imported.filter = try PredicateTranslation.filter(predicate) { attributeType(atPath: $0, from: m.source!) == .string }
                } catch {
                    throw refuse(m, nil, "source filter \"\(ExpressionFormat.excerpt(predicate))\": \(error); write the mapping's \"filter\" in the pipeline language instead (docs/pipeline.md, Expressions)")
                }
            }
            if let className = m.policyClassName, let name = m.policyName {
                notes.append("entity mapping \(m.name) names the migration policy class \(className): etl runs the policy the program registered as '\(name)'")
            }
            if !m.userInfo.isEmpty {
                notes.append("entity mapping \(m.name) has user info (\(m.userInfo.keys.sorted().joined(separator: ", "))): etl passes none to policies; put its values in the ported policy")
            }
            for p in m.attributes {
                guard destination.attribute(p.name, of: m.destination!) != nil else {
                    throw refuse(m, p, kind: "attribute", "\(m.destination!) has no attribute \(p.name) in model \(destination.version)")
                }
                guard let value = try attributeValue(m, p) else { continue }
                imported.attributes.append(.init(property: p.name, value: value, place: MappingModelPlace(mapping, m, p, kind: "attribute")))
            }
            for p in m.relationships {
                guard let r = destination.relationship(p.name, of: m.destination!) else {
                    throw refuse(m, p, kind: "relationship", "\(m.destination!) has no relationship \(p.name) in model \(destination.version)")
                }
                // `FUNCTION($entityPolicy, "selector:", …)`: the policy class computes the links,
                // which an etl policy gives in its `relate` hook.
                if let e = p.expression, case .function(.variable("entityPolicy")?, let selector, _) = e {
                    guard let policy = m.policyName else {
                        throw refuse(m, p, kind: "relationship", "value expression \(e) calls $entityPolicy, but the entity mapping names no migration "
                            + "policy class (Custom Policy in Xcode): name the class whose etl policy sets \(m.destination!).\(r.name)")
                    }
                    notes.append("\(m.name): \(m.destination!).\(r.name) is set by the policy class (\(selector)): the etl policy '\(policy)' "
                        + "sets it in its relate hook (Policy.relate, links by relationship name); without one it stays empty")
                    continue
                }
                guard let lookup = try relationshipValue(m, p, r, kept: kept) else { continue }
                lookups[m.name, default: []].append((r, lookup, MappingModelPlace(mapping, m, p, kind: "relationship")))
            }
            mappings.append(imported)
        }

        // Lookups as expressions, now that every mapping's are known (for inverse sides).
        for (index, m) in kept.enumerated() {
            for (r, lookup, place) in lookups[m.name] ?? [] {
                let path = Self.sourcePath(lookup.path)
                if let through = toManyBeforeEnd(lookup.path, from: m.source!) {
                    // A key path through a to-many (`countries.@distinctUnionOfSets.moods`):
                    // no pipeline path follows it, but it is often the mirror of a to-one.
                    guard r.isToMany, isSetFromInverse(m, r, lookup, lookups: lookups) else {
                        let p = m.relationships.first { $0.name == r.name }!
                        throw refuse(m, p, kind: "relationship", "key path \(lookup.path) goes through the to-many \(through), which a pipeline path "
                            + "cannot follow (it follows to-one relationships, and a to-many at its end): write this step as pipeline JSON "
                            + "(etl mapping show prints the rest of it) and set \(m.destination!).\(r.name) from the other side")
                    }
                    notes.append("\(m.name): \(m.destination!).\(r.name) is set through \(lookup.path); each of \(lookup.mappings.joined(separator: ", ")) "
                        + "sets the inverse \(r.destination).\(r.inverse ?? "") to the same links, so it is left out (setting one side sets both)")
                    continue
                }
                if !r.isToMany {
                    let calls = lookup.mappings.map { Syntax.call("destination", .string($0), path) }
                    mappings[index].relationships.append(.init(property: r.name, value: calls.count == 1 ? calls[0] : .call("coalesce", calls), place: place))
                } else if lookup.mappings.count == 1 {
                    mappings[index].relationships.append(.init(property: r.name, value: .call("destinations", .string(lookup.mappings[0]), path), place: place))
                } else if isSetFromInverse(m, r, lookup, lookups: lookups) {
                    notes.append("\(m.name): \(m.destination!).\(r.name) links rows of several mappings (\(lookup.mappings.joined(separator: ", "))); "
                        + "each of them sets the inverse \(r.destination).\(r.inverse ?? "") to the same links, so it is left out (setting one side sets both)")
                } else {
                    // The links to each mapping's rows (a many-to-many whose other side does
                    // the same writes each pair twice, which its join table keeps once).
                    let calls = lookup.mappings.map { Syntax.call("destinations", .string($0), path) }
                    mappings[index].relationships.append(.init(property: r.name, value: .call("union", calls), place: place))
                }
            }
        }
        let name = fileName.hasSuffix(".xcmappingmodel") ? String(fileName.dropLast(".xcmappingmodel".count)) : fileName
        return ImportedStep(name: name, from: source.version, to: destination.version, mappings: mappings, notes: notes)
    }

    /// The to-many `r` of mapping `m` (several mappings' rows, through `lookup`) is the
    /// mirror of its inverse: every one of those mappings sets `r`'s inverse through `m`,
    /// from the inverse of the source relationship `lookup` follows, and writes it: a to-one,
    /// or a to-many of that one mapping's rows (a to-many of several mappings' rows mirrors
    /// `r` in turn: were both left out, their links would be lost).
    func isSetFromInverse(_ m: XCMappingModel.EntityMapping, _ r: Relationship, _ lookup: Lookup,
                          lookups: [String: [(relationship: Relationship, lookup: Lookup, place: MappingModelPlace)]]) -> Bool {
        guard let inverse = r.inverse, let sourceInverse = inversePath(lookup.path, from: m.source!) else { return false }
        return lookup.mappings.allSatisfy { other in
            (lookups[other] ?? []).contains { $0.relationship.name == inverse && $0.lookup.mappings.contains(m.name) && $0.lookup.path == sourceInverse
                && (!$0.relationship.isToMany || $0.lookup.mappings.count == 1) }
        }
    }

    /// The source relationships a key path follows from `entity`, in order; nil when a
    /// name on it is no relationship.
    func relationships(along path: String, from entity: String) -> [Relationship]? {
        var entity = entity
        var found: [Relationship] = []
        for name in path.split(separator: ".").map(String.init) {
            guard let r = source.relationship(name, of: entity) else { return nil }
            found.append(r)
            entity = r.destination
        }
        return found
    }

    /// The path back from where `path` leads to `entity`: each relationship's inverse, last
    /// first (`countries.moods` from Continent is `country.continent` from Mood).
    func inversePath(_ path: String, from entity: String) -> String? {
        guard !path.isEmpty, let followed = relationships(along: path, from: entity) else { return nil }
        let inverses = followed.reversed().map(\.inverse)
        guard inverses.allSatisfy({ $0 != nil }) else { return nil }
        return inverses.map { $0! }.joined(separator: ".")
    }

    /// The first to-many a key path goes through before its last name, which no pipeline path follows.
    func toManyBeforeEnd(_ path: String, from entity: String) -> String? {
        guard let followed = relationships(along: path, from: entity) else { return nil }
        return followed.dropLast().first(where: \.isToMany).map(\.name)
    }

    /// The type of the attribute a key path of `entity` ends in, through to-one relationships.
    func attributeType(atPath path: String, from entity: String) -> AttributeType? {
        var segments = path.split(separator: ".").map(String.init)
        guard let last = segments.popLast() else { return nil }
        guard let followed = relationships(along: segments.joined(separator: "."), from: entity),
              !followed.contains(where: \.isToMany) else { return nil }
        return source.attribute(last, of: followed.last?.destination ?? entity)?.type
    }

    // MARK: Attributes

    func attributeValue(_ m: XCMappingModel.EntityMapping, _ p: XCMappingModel.PropertyMapping) throws -> Syntax? {
        guard let expression = p.expression else {
            // Auto-generated: the same-named source attribute, if there is one.
            guard p.autogenerates || m.autogenerates, source.attribute(p.name, of: m.source!) != nil else { return nil }
            return .source(p.name)
        }
        if let value = Self.value(expression, isString: { attributeType(atPath: $0, from: m.source!) == .string }, entityPolicy: m.policyName) {
            let target = destination.attribute(p.name, of: m.destination!)?.type
            // Arithmetic stored in an integer attribute: Core Data keeps the number's integer
            // part (`$source.content.length * 0.2` in an Integer 32), as `integer()` does.
            if case .binary = value.kind, target?.isInteger == true { return .call("integer", value) }
            // An NSNumber holds integers and booleans alike, so Core Data stores either in the
            // other's attribute: a Boolean into an Integer as 1/0, an integer into a Boolean
            // as it is, which only 0 and 1 mean (another number is rejected, row by row).
            let given: AttributeType? = switch expression {
            case .constant(.integer): .integer64
            case .constant(.bool): .boolean
            default: expression.sourceKeyPath.flatMap { attributeType(atPath: $0, from: m.source!) }
            }
            if target == .boolean, given?.isInteger == true {
                if case .constant(.integer(let n)) = expression, n == 0 || n == 1 { return .literal(.boolean(n == 1)) }
                let integer = { (n: Int64) in Syntax.literal(.integer(n)) }, boolean = { (b: Bool) in Syntax.literal(.boolean(b)) }
                let rejected = Syntax.call("boolean", .call("concat", .string("NSNumber "), value, .string(" in a Boolean attribute (0 or 1 only)")))
                return .call("if", .binary(.equal, value, integer(0)), boolean(false), .call("if", .binary(.equal, value, integer(1)), boolean(true), rejected))
            }
            if target?.isInteger == true, given == .boolean {
                if case .constant(.bool(let b)) = expression { return .literal(.integer(b ? 1 : 0)) }
                return .call("integer", value)
            }
            return value
        }
        if m.policyName == nil, expression.callsEntityPolicy {
            throw refuse(m, p, kind: "attribute", "value expression \(expression) calls $entityPolicy, but the entity mapping names no migration policy class "
                + "(Custom Policy in Xcode): name the class whose etl policy has the function, or write this step as pipeline JSON")
        }
        let suggestion = Printer.print(source.attribute(p.name, of: m.source!) != nil ? .source(p.name) : .null)
        throw refuse(m, p, kind: "attribute", "value expression \(expression) has no pipeline equivalent etl knows: write this step as pipeline JSON "
            + "(etl mapping show prints it) with an expression of your own for \(m.destination!).\(p.name), such as \"\(suggestion)\" (docs/pipeline.md, Expressions)")
    }

    static let arithmetic: [String: Syntax.BinaryOperator] = ["add:to:": .plus, "from:subtract:": .minus, "multiply:by:": .times,
                                                             "divide:by:": .divide, "modulus:by:": .remainder]
    // NSString's `length` counts UTF-16 units (NSData's, bytes): `utf16length`, not `length`.
    static let functions = ["uppercase:": "upper", "lowercase:": "lower", "length:": "utf16length"]
    static let methods = ["uppercaseString": "upper", "lowercaseString": "lower", "length": "utf16length"]
    static let casts = ["NSString": "string", "NSNumber": "double", "NSDate": "date"]

    /// An attribute value expression in the pipeline language, or nil when it has none.
    /// `isString` tells a key path that ends in a string attribute: `content.length` is the
    /// length of the string `content` (key-value coding sends `length` to the string).
    /// `entityPolicy` is the etl name of the mapping's policy class, which
    /// `FUNCTION($entityPolicy, "selector:", …)` calls (nil: the mapping names none).
    static func value(_ e: ArchivedExpression, isString: (String) -> Bool = { _ in false }, entityPolicy: String? = nil) -> Syntax? {
        if let path = e.sourceKeyPath {
            if path.hasSuffix(".length"), isString(String(path.dropLast(".length".count))) {
                return .call("utf16length", sourcePath(String(path.dropLast(".length".count))))
            }
            return sourcePath(path)
        }
        func operand(_ e: ArchivedExpression) -> Syntax? {
            value(e, isString: isString, entityPolicy: entityPolicy)
        }
        switch e {
        case .constant(let v):
            switch v {
            case .null: return .null
            case .bool(let b): return .literal(.boolean(b))
            case .integer(let i): return .literal(.integer(i))
            case .real(let d): return d.isFinite ? .literal(.double(d)) : nil
            case .string(let s): return .string(s)
            default: return nil
            }
        case .function(let target, let selector, let arguments):
            if target == .variable("entityPolicy") {
                guard let entityPolicy else { return nil }
                let values = arguments.map(operand)
                guard values.allSatisfy({ $0 != nil }) else { return nil }
                return .call(MappingModelImport.policyFunctionName(policy: entityPolicy, selector: selector), values.map { $0! })
            }
            if let op = arithmetic[selector], arguments.count == 2, let a = operand(arguments[0]), let b = operand(arguments[1]) {
                return .binary(op, a, b)
            }
            if let f = functions[selector], arguments.count == 1, let a = operand(arguments[0]) { return .call(f, a) }
            if selector == "castObject:toType:", arguments.count == 2, case .constant(.string(let type)) = arguments[1],
               let f = casts[type], let a = operand(arguments[0]) {
                return .call(f, a)
            }
            // A method sent to a value (`FUNCTION($source.name, "uppercaseString")`).
            guard let target, target != .variable("manager"), let receiver = operand(target) else { return nil }
            if let f = methods[selector], arguments.isEmpty { return .call(f, receiver) }
            if selector == "stringByAppendingString:", arguments.count == 1, let a = operand(arguments[0]) { return .call("concat", receiver, a) }
            return nil
        default:
            return nil
        }
    }

    /// `$source` followed by the names of a key path ("" for the row itself).
    static func sourcePath(_ path: String) -> Syntax {
        .path(.source, path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    // MARK: Relationships

    func relationshipValue(_ m: XCMappingModel.EntityMapping, _ p: XCMappingModel.PropertyMapping, _ r: Relationship,
                           kept: [XCMappingModel.EntityMapping]) throws -> Lookup? {
        let call = r.isToMany ? "destinations" : "destination"
        func unknown(_ what: String) -> DocumentError {
            refuse(m, p, kind: "relationship", "\(what): write this step as pipeline JSON (etl mapping show prints it) with an expression of your own for "
                + "\(m.destination!).\(r.name), such as \"\(Printer.print(.call(call, .string("Mapping"), .source(p.name))))\" (docs/pipeline.md, Expressions)")
        }
        /// The mappings that carry rows of the source relationship `name` (a key path: the
        /// relationship it ends in) to rows `r` may hold.
        func mappings(followingSourceRelationship name: String) throws -> [String] {
            guard let followed = relationships(along: name, from: m.source!)?.last else {
                throw unknown("\(m.source!) has no relationship \(name) in model \(source.version)")
            }
            let sources = Set(source.descendants(of: followed.destination))
            let allowed = Set(destination.descendants(of: r.destination))
            let names = kept.filter { sources.contains($0.source!) && allowed.contains($0.destination!) }.map(\.name)
            guard !names.isEmpty else {
                throw unknown("no entity mapping of the file carries \(followed.destination) rows to \(r.destination)")
            }
            return names
        }
        if let keyPath = p.sourceKeyPath {
            // Xcode's Key Path and Mapping Name fields: what Core Data makes of them is
            // `destinationInstancesForEntityMappingNamed:sourceInstances:` over the key path.
            guard let path = Self.keyPath(keyPath), relationships(along: path, from: m.source!) != nil else {
                throw unknown("key path \(keyPath) is no path of \(m.source!)'s relationships in model \(source.version)")
            }
            guard let name = p.sourceMappingName else {
                guard !path.isEmpty else {
                    throw unknown("key path \(keyPath) without a Mapping Name names no mapping whose rows \(m.destination!).\(r.name) holds")
                }
                return Lookup(mappings: try mappings(followingSourceRelationship: path), path: path)
            }
            guard kept.contains(where: { $0.name == name }) else {
                throw unknown("mapping name \(name) is not one of the file's mappings that make rows (\(kept.map(\.name).joined(separator: ", ")))")
            }
            return Lookup(mappings: [name], path: path)
        }
        guard let expression = p.expression else {
            guard p.autogenerates || m.autogenerates, source.relationship(p.name, of: m.source!) != nil else { return nil }
            return Lookup(mappings: try mappings(followingSourceRelationship: p.name), path: p.name)
        }
        guard case .function(.variable("manager")?, let selector, let arguments) = expression, arguments.count == 2,
              case .constant(.string(let name)) = arguments[0], let path = arguments[1].sourceKeyPath else {
            throw unknown("value expression \(expression) has no pipeline equivalent etl knows")
        }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard kept.contains(where: { $0.name == name }) else {
                throw unknown("value expression \(expression) names entity mapping \(name), which is not one of the file's mappings that make rows (\(kept.map(\.name).joined(separator: ", ")))")
            }
            return Lookup(mappings: [name], path: path)
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            return Lookup(mappings: try mappings(followingSourceRelationship: name), path: path)
        default:
            throw unknown("value expression \(expression) has no pipeline equivalent etl knows")
        }
    }

    /// A key path as Xcode's Key Path field holds it (`$source.countries.@distinctUnionOfSets.moods`)
    /// as the relationship names it follows (`countries.moods`); nil for another operator.
    static func keyPath(_ text: String) -> String? {
        var names = text.split(separator: ".").map(String.init)
        if names.first == "$source" { names.removeFirst() }
        let unions: Set<String> = ["@distinctUnionOfSets", "@unionOfSets", "@distinctUnionOfArrays", "@unionOfArrays",
                                   "@distinctUnionOfObjects", "@unionOfObjects"]
        names.removeAll { unions.contains($0) }
        // `$source` alone: the source row itself (with a Mapping Name, the row that mapping made from it).
        if names.isEmpty, text.split(separator: ".").first == "$source" { return "" }
        guard !names.isEmpty, names.allSatisfy({ !$0.hasPrefix("@") && !$0.hasPrefix("$") }) else { return nil }
        return names.joined(separator: ".")
    }
}
