import ETLStore
import ETLModel
import ETLExpression
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
///   link is the source's link); when they do not, the source's order is carried through
///   the associations or uniqueBy keys (`CarriedOrder`). What is left (new links, new lists)
///   `CoreDataLayout.finish` numbers as Core Data does, 2048, 3072, ….
///
/// Runs after either executor made the step's rows and links, whichever way (pushed down,
/// row by row, fused), over the step's source attached read-only; every statement sets
/// values from the source alone, so running it again after a resume writes the same.
struct KeptBookkeeping {
    let step: StepPlan
    /// The mappings whose associations the step's executor recorded (`StepOutcome`): where
    /// rows do not keep their keys, an ordered list's order is carried through them
    /// (`CarriedOrder`).
    var associationsKept: Set<MappingID> = []
    /// The program's functions, which a uniqueBy found again in SQL may call.
    var functions: [String: ExpressionFunction] = [:]
    /// The plan's memo: the statements are made once per step of a plan, not per store.
    var memo: PlanMemo?

    /// `statements()` as SQL, kept in the plan's memo. They are made from the plan's step
    /// and `associationsKept` alone (the source is attached, never read, to make them), so
    /// every store of a kind (`PlanCache`) has the same; they cost ~380,000 instructions a step.
    struct Made {
        let sql: [String]
        let carried: [String]
        let evaluates: Bool
        let uncopied: [String]
    }

    /// What `Made` is made from besides the plan: the step (by number and name, as fused
    /// steps are renumbered, as `PushdownPlan.MemoKey`) and the associations the run kept.
    struct MemoKey: PlanMemoKey {
        typealias Value = Made
        let step: Int
        let stepName: String
        let associationsKept: [Int]
    }

    private func makeStatements() -> Made {
        let (sql, carried, evaluates, uncopied) = statements()
        return Made(sql: sql.map(\.sql), carried: carried, evaluates: evaluates, uncopied: uncopied)
    }

    /// The statements, over the source attached as `src`: `sql` and `carried` (the
    /// order of lists whose rows do not keep their keys, `CarriedOrder`, and whether one
    /// evaluates a uniqueBy in SQL); and the ordered relationships whose order could not be
    /// carried (for the run's notes).
    func statements() -> (sql: [SQLUpdate], carried: [String], evaluates: Bool, uncopied: [String]) {
        guard let source = CoreDataLayout.of(step.sourceLayout), let destination = CoreDataLayout.of(step.destinationLayout) else {
            return ([], [], false, [])
        }
        let kept = step.sourceKeyTargets
        var sql: [SQLUpdate] = []
        var carried: [String] = []
        var evaluates = false
        var uncopied: [String] = []
        let order = CarriedOrder(step: step, associationsKept: associationsKept)

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
        sql += sharedColumns(source: source, destination: destination, kept: keptEntities)

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
                        // Through the record of which source row became which row.
                        let (owners, members) = side.ownerIsTarget ? (targets, [index]) : ([index], targets)
                        guard let statement = order.statement(from: from, into: into, owners: owners, members: members) else {
                            uncopied.append(what)
                            continue
                        }
                        if !carried.contains(statement) { carried.append(statement) }
                        evaluates = evaluates || (owners + members).contains(where: order.evaluates)
                        continue
                    }
                    let statement = Self.keptOrder(from: from, into: into)
                    if !sql.contains(statement) { sql.append(statement) }
                }
            }
        }
        return (sql, carried, evaluates, Array(Set(uncopied)).sorted())
    }

    /// Copies what the source keeps into the step's store (`db`, inside a transaction, with
    /// the step's work database attached as `work`). Returns notes for the ordered
    /// relationships whose order was not carried.
    /// - Parameter sourceAttached: the step's input is attached to `db` as `src` already (a
    ///   pushed-down step leaves it there): read there, not attached again — attaching a
    ///   store opens its files and parses its schema, on every store of a batch.
    func copy(into db: Database, sourcePath: String, sourceAttached: Bool = false) throws -> [String] {
        // Not from a Core Data store into one: no bookkeeping kept, nothing to make or look up.
        guard CoreDataLayout.of(step.sourceLayout) != nil, CoreDataLayout.of(step.destinationLayout) != nil else { return [] }
        let key = MemoKey(step: step.index, stepName: step.name, associationsKept: associationsKept.map(\.index).sorted())
        let made = memo?.value(key) { makeStatements() } ?? makeStatements()
        let (sql, carried, evaluates, uncopied) = (made.sql, made.carried, made.evaluates, made.uncopied)
        let notes = uncopied.map {
            "step \(step.name): the order of \($0) was numbered anew in key order (2048, 3072, …), "
                + "its rows not keeping their source keys: the source's order is not carried"
        }
        guard !sql.isEmpty || !carried.isEmpty else { return notes }
        if evaluates {
            // A resumed step may not have run the statements that registered them on this connection.
            try SQLTranslator.registerValueFunction(on: db)
            try SQLTranslator.register(functions, on: db)
        }
        if !sourceAttached {
            try PushdownStage.attachSource(sourcePath, to: db)
        }
        defer { if !sourceAttached { try? db.execute("DETACH DATABASE src") } }
        try db.transaction {
            for statement in sql { try db.execute(statement) }
            for statement in carried { try db.execute(statement) }
        }
        return notes
    }

    /// A sub-entity's attribute column on a table its root shares with other entities holds,
    /// on the other entities' rows, what Core Data's migration leaves there (facts §4.1):
    /// - the column the source has for it (the same attribute, by name or renaming
    ///   identifier, of the entity the step maps onto it): the source's values, on the rows
    ///   that keep their source keys — a later hop keeps what the source holds there;
    /// - an attribute the hop adds, with a default: the default, on every row (Core Data adds
    ///   the column with its default). Dates, binary values and UUIDs are left null: their
    ///   stored form is not the model's default's.
    func sharedColumns(source: CoreDataLayout, destination: CoreDataLayout,
                       kept: [String: (source: String, numbers: [Int])]) -> [SQLUpdate] {
        let model = destination.model
        var sql: [SQLUpdate] = []
        for root in model.entities where root.parent == nil {
            let members = model.descendants(of: root.name)
            guard members.count > 1 else { continue }
            let table = destination.table(of: root.name).name
            for entity in members.dropFirst().compactMap({ model.entity(named: $0) }) where !entity.attributes.isEmpty {
                let own = Set(model.descendants(of: entity.name))
                let others = members.filter { !own.contains($0) }.compactMap { destination.entityNumber(of: $0) }.sorted()
                let sourceEntity = step.mappings.first { $0.destinationEntity == entity.name }?.sourceEntity
                for attribute in entity.attributes {
                    let column = destination.column(ofAttribute: attribute.name, entity: entity.name)
                    let t = SQLTable.main(table)
                    let counterpart = sourceEntity.flatMap { e in
                        [attribute.name, attribute.renamingIdentifier].compactMap { $0 }.first { source.model.attribute($0, of: e) != nil }.map { (e, $0) }
                    }
                    if let (e, name) = counterpart {
                        let from = source.table(of: e).name
                        let rows = (kept[table]?.source == from ? kept[table]!.numbers : []).filter { others.contains($0) }
                        guard !rows.isEmpty else { continue }
                        let s = Self.source(from, alias: "s"), sourceColumn = source.column(ofAttribute: name, entity: e)
                        sql.append(SQLUpdate(t, set: [(column: column, value: s.column(sourceColumn))], from: .table(s),
                                             where: ["\(s.column("Z_PK")) = \(t.column("Z_PK"))",
                                                     "\(t.column("Z_ENT")) IN (\(rows.map(String.init).joined(separator: ", ")))",
                                                     "\(s.column(sourceColumn)) IS NOT \(t.column(column))"]))
                    } else if let value = attribute.defaultValue, !others.isEmpty,
                              ![.date, .binary, .uuid, .transformable].contains(attribute.type) {
                        sql.append(SQLUpdate(t, set: [(column: column, value: value.sqlLiteral)],
                                             where: ["\(t.column("Z_ENT")) IN (\(others.map(String.init).joined(separator: ", ")))",
                                                     "\(t.column(column)) IS NULL"]))
                    }
                }
            }
        }
        return sql
    }

    /// The source's table as the statements read it.
    static func source(_ table: String, alias: String? = nil) -> SQLTable { SQLTable.source(table, alias: alias) }

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
