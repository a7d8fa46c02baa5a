import ETLStore
import ETLModel
import ETLCoreData
import ETLPipeline

/// What Core Data's own migration keeps of its bookkeeping columns, and a step from a Core
/// Data store into a Core Data store keeps too (facts §2, §3 of the shared layout doc):
///
/// - `Z_OPT` (the row's save count, which the app's optimistic locking compares): a row
///   that keeps its source key keeps its source row's `Z_OPT`; new rows have 1.
/// - `Z_FOK_…` (the position of a member in an ordered to-many): a link the step carried
///   from an ordered relationship of the source to an ordered one of the destination keeps
///   the source's value, when both its rows keep their source keys (so the destination's
///   link is the source's link). What is left (new links, new lists) `CoreDataLayout.finish`
///   numbers as Core Data does, 2048, 3072, ….
///
/// Runs after either executor made the step's rows and links, whichever way (pushed down,
/// row by row, fused), over the step's source attached read-only; every statement sets
/// values from the source alone, so running it again after a resume writes the same.
struct KeptBookkeeping {
    let step: StepPlan

    /// The statements, over the source attached as `kept_src`, and the ordered relationships
    /// whose order could not be copied (for the run's notes).
    func statements() -> (sql: [SQLUpdate], uncopied: [String]) {
        guard let source = CoreDataLayout.of(step.sourceLayout), let destination = CoreDataLayout.of(step.destinationLayout) else {
            return ([], [])
        }
        let kept = step.sourceKeyTargets
        var sql: [SQLUpdate] = []
        var uncopied: [String] = []

        // Z_OPT of the rows kept, table by table (the kept rows of one table come from one
        // source table: `sourceKeyTargets`).
        var keptEntities: [String: (source: String, numbers: [Int])] = [:]
        for id in kept.sorted() {
            let target = step.targets[id]
            let table = destination.table(of: target.entity).name
            guard let number = destination.entityNumber(of: target.entity) else { continue }
            let from = source.table(of: step.mappings[target.mapping].sourceEntity).name
            keptEntities[table, default: (from, [])].numbers.append(number)
        }
        for (table, kept) in keptEntities.sorted(by: { $0.key < $1.key }) {
            sql.append(Self.keptSaveCounts(table: table, entities: kept.numbers, from: kept.source))
        }

        // Z_FOK_: each relationship assignment `destination(s)('M', $source.r)` carries r's
        // links; where r's ordered side maps onto the destination's, its values come along.
        for index in step.mappingIDs {
            let mapping = step.mappings[index]
            for assignment in mapping.relationships {
                let d = assignment.relationship
                let orderedSides = Self.orderedSides(of: d, entity: mapping.destinationEntity, destination.model)
                guard !orderedSides.isEmpty else { continue }
                let what = orderedSides.map { "\($0.entity).\($0.relationship.name)" }.joined(separator: ", ")
                guard let (targetNames, path) = Self.carriedLinks(assignment.expression.form),
                      path.root == .source, path.segments.count == 1,
                      let r = source.model.relationship(path.segments[0], of: mapping.sourceEntity) else {
                    continue  // Not a relationship's links carried over: the order is the destination's own.
                }
                let sourceSides = Self.orderedSides(of: r, entity: mapping.sourceEntity, source.model)
                let targets = targetNames.compactMap { name in step.mappingIDs.first(where: { step.mappings[$0].name == name }) }
                guard targets.count == targetNames.count else { continue }
                let keysKept = kept.contains(mapping.ownTarget) && targets.allSatisfy { kept.contains(step.mappings[$0].ownTarget) }
                for side in orderedSides {
                    // The same orientation in the source: the list's owner is the owner row, or the target row.
                    guard let match = sourceSides.first(where: { $0.ownerIsTarget == side.ownerIsTarget }),
                          let from = Self.pairs(of: match, in: source), let into = Self.pairs(of: side, in: destination) else { continue }
                    guard keysKept else {
                        uncopied.append(what)
                        continue
                    }
                    let statement = Self.keptOrder(from: from, into: into)
                    if !sql.contains(statement) { sql.append(statement) }
                }
            }
        }
        return (sql, Array(Set(uncopied)).sorted())
    }

    /// Copies what the source keeps into the step's store (`db`, inside a transaction).
    /// Returns notes for the ordered relationships whose order was not copied.
    func copy(into db: Database, sourcePath: String) throws -> [String] {
        let (sql, uncopied) = statements()
        guard !sql.isEmpty else { return [] }
        try db.execute("ATTACH DATABASE \(SQLValue.text(PushdownStage.sourceURI(sourcePath)).sqlLiteral) AS kept_src")
        defer { try? db.execute("DETACH DATABASE kept_src") }
        try db.transaction {
            for statement in sql { try db.execute(statement.sql) }
        }
        return uncopied.map {
            "step \(step.name): the order of \($0) was numbered anew in key order (2048, 3072, …), "
                + "its rows not keeping their source keys: the source's order is not carried"
        }
    }

    /// The source's table as the statements read it.
    static func source(_ table: String, alias: String? = nil) -> SQLTable { SQLTable(schema: "kept_src", name: table, alias: alias) }

    /// `table`'s rows of entities `entities` (their `Z_ENT`s) take the `Z_OPT` of the source
    /// row of their key in `source`, where it differs.
    static func keptSaveCounts(table: String, entities: [Int], from source: String) -> SQLUpdate {
        let t = SQLTable.main(table), s = Self.source(source, alias: "s")
        return SQLUpdate(t, set: [(column: "Z_OPT", value: s.column("Z_OPT"))], from: .table(s),
                         where: ["\(s.column("Z_PK")) = \(t.column("Z_PK"))",
                                 "\(t.column("Z_ENT")) IN (\(entities.sorted().map(String.init).joined(separator: ", ")))",
                                 "\(s.column("Z_OPT")) IS NOT \(t.column("Z_OPT"))"])
    }

    /// The positions of an ordered to-many's members copied from the source's (owner, member)
    /// pairs `from` onto the same pairs in `into`, where they differ; a source pair without a
    /// position or an owner is not copied (`CoreDataLayout.finish` numbers what is left).
    static func keptOrder(from: OrderedList, into: OrderedList) -> SQLUpdate {
        let t = SQLTable.main(into.table), listed = Self.source(from.table)
        let positions = SQLSelect(["\(listed.column(from.owner)) AS o", "\(listed.column(from.member)) AS m", "\(listed.column(from.order)) AS v"],
                                  from: listed, where: ["\(listed.column(from.order)) IS NOT NULL", "\(listed.column(from.owner)) IS NOT NULL"])
        return SQLUpdate(t, set: [(column: into.order, value: "s.v")], from: .select(positions, alias: "s"),
                         where: ["\(t.column(into.owner)) = s.o", "\(t.column(into.member)) = s.m", "\(t.column(into.order)) IS NOT s.v"])
    }

    /// The mappings whose rows an assignment links and the source path it links them along:
    /// `destination(s)('M', path)`, or a `union` (a to-many) or `coalesce` (a to-one) of such
    /// lookups along one path (relationships into a hierarchy, one mapping per sub-entity).
    static func carriedLinks(_ form: ExpressionForm?) -> (mappings: [String], path: SourcePath)? {
        func lookup(_ form: ExpressionForm) -> (String, SourcePath)? {
            guard case .destinations(let name, .path(let path, _), _) = form else { return nil }
            return (name, path)
        }
        guard let form else { return nil }
        if let (name, path) = lookup(form) { return ([name], path) }
        switch form {
        case .union(let parts), .coalesce(let parts):
            let lookups = parts.compactMap(lookup)
            guard lookups.count == parts.count, let path = lookups.first?.1, lookups.allSatisfy({ $0.1 == path }) else { return nil }
            return (lookups.map(\.0), path)
        default:
            return nil
        }
    }

    /// An ordered to-many seen from one relationship of a pair: the ordered relationship
    /// itself (`ownerIsTarget` false: the list belongs to the row holding `relationship`),
    /// or its inverse (true: the list belongs to the row it points at).
    struct OrderedSide {
        let entity: String
        let relationship: Relationship
        let ownerIsTarget: Bool
    }

    static func orderedSides(of r: Relationship, entity: String, _ model: Model) -> [OrderedSide] {
        var sides: [OrderedSide] = []
        if r.isToMany && r.isOrdered { sides.append(.init(entity: entity, relationship: r, ownerIsTarget: false)) }
        if let inverse = model.inverse(of: r), inverse.isToMany, inverse.isOrdered {
            sides.append(.init(entity: r.destination, relationship: inverse, ownerIsTarget: true))
        }
        return sides
    }

    /// Where an ordered to-many's (owner, member, position) triples are: a table and its columns.
    struct OrderedList {
        let table: String
        let owner: String
        let member: String
        let order: String
    }

    static func pairs(of side: OrderedSide, in layout: CoreDataLayout) -> OrderedList? {
        guard let order = layout.orderColumn(ofRelationship: side.relationship.name, entity: side.entity) else { return nil }
        switch layout.storage(ofRelationship: side.relationship.name, entity: side.entity) {
        case .inverseForeignKey(let table, let column):
            return OrderedList(table: table, owner: column, member: "Z_PK", order: order)
        case .joinTable(let table, let own, let other):
            return OrderedList(table: table, owner: own, member: other, order: order)
        case .foreignKey:
            return nil
        }
    }
}
