import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Links of the source that name no row: a to-one's key column holding a key no row has
/// (`ZPARENT = 999`, or a value no key can be: `'8x'`), a join table's pair of which one side
/// is no row (`(6, 999)`). Neither executor can link them (their lookups find no row), and
/// before this they vanished without a word (issue 45).
///
/// Found before a row is read, whichever executor then runs the step: one anti-join over
/// the source per stored link a mapping's relationships read (a key column, a join table;
/// a to-many kept as the other side's key column is that column's link, checked once). Each
/// is then, as the pipeline's `"danglingLinks"` says (`DanglingLinkRules`), rejected — a
/// reject of the mapping with its value, counted in its `rejected`; the row is migrated
/// without the link — or dropped, counted and named. The rejects are made again whole by
/// each try of the step (kept apart, `WorkDatabase.danglingLinkRejects`), so a resumed step
/// has the same ones; its counters come from its checkpoint.
///
/// An owner row is one of the mapping's source entity, whether or not its filter passes it.
struct DanglingLinks {
    let step: StepPlan
    let rules: DanglingLinkRules

    /// One stored link a mapping reads.
    struct StoredLink {
        let mapping: MappingID
        /// The entity whose rows hold the link, and the relationship it stores.
        let entity: String
        let relationship: String
        let action: DanglingLinkRules.Action
        /// Rows (owner key, what it names) of the links to no row, in key order.
        let query: String
        /// Where the value is, and the entity it should name, for the reject's message.
        let column: String
        let target: String
        /// The key columns the query reads, each with the table whose keys it should name.
        let sides: [Side]
    }

    /// A column holding keys of `target`'s table; `nullNamesNoRow`: a NULL there is a
    /// link to no row (a join table's side), not the absence of a link (a to-one).
    struct Side {
        let table: String
        let column: String
        let target: EntityTable
        let nullNamesNoRow: Bool
    }

    /// Links dropped, per relationship: what the summary counts and the notes name.
    struct Dropped {
        let name: String
        let count: Int
        let examples: [String]
    }

    /// Every stored link the step's mappings read, each once. `nullable(table, column)`:
    /// whether the source's column may hold NULL (a join table's pair with a NULL side names
    /// no row; looking for one costs a scan where the column cannot hold it).
    func storedLinks(nullable: (String, String) -> Bool = { _, _ in true }) -> [StoredLink] {
        let layout = step.sourceLayout
        let model = step.sourceModel
        let q = Database.quote
        var seen: Set<String> = []
        var links: [StoredLink] = []
        for index in step.mappingIDs {
            let mapping = step.mappings[index]
            var read: [String] = []
            for assignment in mapping.relationships {
                _ = assignment.expression.form?.contains { form in
                    if case .path(let path, _) = form, path.root == .source, path.segments.count == 1, !read.contains(path.segments[0]) {
                        read.append(path.segments[0])
                    }
                    return false
                }
            }
            for name in read {
                guard let r = model.relationship(name, of: mapping.sourceEntity) else { continue }
                let owner = layout.table(of: mapping.sourceEntity)
                let target = layout.table(of: r.destination)
                let ancestors = model.lineage(of: mapping.sourceEntity).dropFirst().map(\.name)
                switch layout.storage(ofRelationship: name, entity: mapping.sourceEntity) {
                case .foreignKey(let table, let column):
                    guard seen.insert("\(table).\(column)").inserted else { continue }
                    let a = "a"
                    let conditions = ["\(a).\(q(column)) IS NOT NULL"] + [owner.condition(alias: a)].compactMap { $0 }
                        + [Self.namesNoRow("\(a).\(q(column))", column: column, of: table, target: target)]
                    links.append(.init(mapping: index, entity: mapping.sourceEntity, relationship: name,
                                       action: rules.action(entity: mapping.sourceEntity, relationship: name, declaredOn: ancestors),
                                       query: "SELECT \(a).\(q(owner.keyColumn)), \(a).\(q(column)) FROM main.\(q(table)) \(a) WHERE "
                                           + conditions.joined(separator: " AND ") + " ORDER BY 1",
                                       column: column, target: r.destination,
                                       sides: [.init(table: table, column: column, target: target, nullNamesNoRow: false)]))
                case .inverseForeignKey(let table, let column):
                    // The other side's to-one: a row there naming no row of this entity.
                    guard seen.insert("\(table).\(column)").inserted else { continue }
                    let inverse = r.inverse ?? name
                    links.append(.init(mapping: index, entity: r.destination, relationship: inverse,
                                       action: rules.action(entity: r.destination, relationship: inverse,
                                                            declaredOn: model.lineage(of: r.destination).dropFirst().map(\.name)),
                                       query: "SELECT t.\(q(target.keyColumn)), t.\(q(column)) FROM main.\(q(table)) t WHERE t.\(q(column)) IS NOT NULL "
                                           + "AND \(Self.namesNoRow("t.\(q(column))", column: column, of: table, target: owner)) ORDER BY 1",
                                       column: column, target: mapping.sourceEntity,
                                       sides: [.init(table: table, column: column, target: owner, nullNamesNoRow: false)]))
                case .joinTable(let table, let own, let other):
                    guard seen.insert(table).inserted else { continue }
                    links.append(.init(mapping: index, entity: mapping.sourceEntity, relationship: name,
                                       action: rules.action(entity: mapping.sourceEntity, relationship: name, declaredOn: ancestors),
                                       query: "SELECT p.\(q(own)), p.\(q(other)) FROM main.\(q(table)) p "
                                           + "WHERE " + ((nullable(table, own) ? ["p.\(q(own)) IS NULL"] : [])
                                               + [Self.namesNoRow("p.\(q(own))", column: own, of: table, target: owner)]
                                               + (nullable(table, other) ? ["p.\(q(other)) IS NULL"] : [])
                                               + [Self.namesNoRow("p.\(q(other))", column: other, of: table, target: target)]).joined(separator: " OR ")
                                           + " ORDER BY 1, 2",
                                       column: "\(table)(\(own), \(other))", target: "\(mapping.sourceEntity) and \(r.destination)",
                                       sides: [.init(table: table, column: own, target: owner, nullNamesNoRow: nullable(table, own)),
                                               .init(table: table, column: other, target: target, nullNamesNoRow: nullable(table, other))]))
                }
            }
        }
        return links
    }

    /// `value IN` the values of `column` of `table` that name no row of `target`: each
    /// distinct value looked up once, in order, by a join whose cursor on `target` steps on
    /// from the last key found instead of seeking from the root (a correlated NOT EXISTS
    /// seeks each time); a row's value is then found in that list, which is nearly always
    /// empty. A join table of 450,000 pairs naming 300,000 books: 0.14 s, against 0.21 s
    /// with NOT EXISTS per distinct value and 0.79 s per pair (sqlite3 3.40 here).
    static func namesNoRow(_ value: String, column: String, of table: String, target: EntityTable) -> String {
        let q = Database.quote
        let key = "k.\(q(target.keyColumn))"
        return "\(value) IN (SELECT d.v FROM (SELECT DISTINCT \(q(column)) AS v FROM main.\(q(table))) d "
            + "LEFT JOIN main.\(q(target.name)) k ON \(key) = d.v WHERE \(key) IS NULL)"
    }

    /// Whether every value of `sides` (columns of one table) names a row, proven without
    /// looking one up: each target's keys are contiguous (`Database.contiguousKeys`), each
    /// column's lowest and highest values are integers inside them (a text or a blob sorts
    /// above every number, so the highest would be one), and the sum of each column is an
    /// integer, which it is only when every value is (a real such as 1.5 makes it real).
    /// Then the lookup of `StoredLink.query`, a join over every distinct value, is left out:
    /// it finds nothing in every store but a damaged one, and cost about as much as copying
    /// the links. min and max are one seek each where the column leads an index, as a join
    /// table's and Core Data's to-one columns do; the sums are one scan.
    static func everyValueNamesARow(_ sides: [Side], in db: Database) throws -> Bool {
        guard let table = sides.first.map({ "main.\(Database.quote($0.table))" }), sides.allSatisfy({ $0.table == sides[0].table }) else { return false }
        var keys: [ClosedRange<Int64>] = []
        for side in sides {
            guard let range = try db.contiguousKeys(ofTable: side.target.name, key: side.target.keyColumn) else { return false }
            keys.append(range)
        }
        // One statement (a subquery each, so that each min and max is a seek), then one scan for the sums.
        let ends = try db.rows("SELECT " + sides.map { side in
            let column = Database.quote(side.column)
            return "(SELECT min(\(column)) FROM \(table)), (SELECT max(\(column)) FROM \(table)), "
                + (side.nullNamesNoRow ? "EXISTS (SELECT 1 FROM \(table) WHERE \(column) IS NULL)" : "0")
        }.joined(separator: ", "))[0]
        for (index, range) in keys.enumerated() {
            guard case .integer(let low) = ends[3 * index], range.contains(low),
                  case .integer(let high) = ends[3 * index + 1], range.contains(high),
                  ends[3 * index + 2] == .integer(0) else { return false }
        }
        // sum fails on an overflow: then the values are looked up.
        let sums = (try? db.rows("SELECT " + sides.map { "sum(\(Database.quote($0.column)))" }.joined(separator: ", ") + " FROM \(table)")[0]) ?? []
        return sums.count == sides.count && sums.allSatisfy { if case .integer = $0 { true } else { false } }
    }

    /// Finds the links to no row in `context.source` and keeps the rejected ones in the step's
    /// work file (replacing those of an earlier try); `count`: add them to the counters (a
    /// step resumed from a checkpoint has them there). Returns what was dropped.
    func apply(to context: StepContext, count: Bool) throws -> [Dropped] {
        let source = context.source
        let links = storedLinks { table, column in
            (try? source.rows("SELECT 1 FROM pragma_table_info(?) WHERE name = ? AND \"notnull\" = 1", [.text(table), .text(column)]).isEmpty) ?? true
        }
        guard !links.isEmpty else { return [] }
        let work = WorkDatabase(attachedTo: context.destination)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var dropped: [Dropped] = []
        var rejected: [Reject] = []
        var rejectedBy: [MappingID: Int] = [:]
        try context.destination.transaction {
            try work.forgetDanglingLinkRejects()
            let insert = try work.prepareDanglingLinkReject()
            for link in links {
                try context.checkCancelled()
                if try Self.everyValueNamesARow(link.sides, in: source) { continue }
                let rows = try context.source.prepare(link.query)
                var found = 0
                var examples: [String] = []
                while try rows.step() {
                    found += 1
                    let owner = rows.value(0), value = rows.value(1)
                    let described = link.column.contains("(") ? "(\(owner.sqlLiteral), \(value.sqlLiteral))" : value.sqlLiteral
                    switch link.action {
                    case .drop:
                        if examples.count < 3 { examples.append(described) }
                    case .reject:
                        let key: Int64 = if case .integer(let k) = owner { k } else { 0 }
                        let record = Reject(step: step.name, mapping: step.mappings[link.mapping].name, stage: "relate", entity: link.entity,
                                            key: key, expression: "$source.\(link.relationship)",
                                            error: link.column.contains("(")
                                                ? "the pair \(described) of \(link.column) in \(context.sourcePath) names no row of \(link.target): "
                                                    + "the link is not made (\"danglingLinks\": \"drop\" drops such links)"
                                                : "\(link.column) = \(described) in \(context.sourcePath) names no row of \(link.target): the row is "
                                                    + "migrated without \(link.entity).\(link.relationship) (\"danglingLinks\": \"drop\" drops such links)",
                                            values: [link.relationship: described])
                        try insert.run([.integer(key), .text(String(decoding: try encoder.encode(record), as: UTF8.self))])
                        if rejected.count < 5 { rejected.append(record) }
                    }
                }
                guard found > 0 else { continue }
                switch link.action {
                case .drop: dropped.append(.init(name: "\(link.entity).\(link.relationship)", count: found, examples: examples))
                case .reject: rejectedBy[link.mapping, default: 0] += found
                }
            }
        }
        if count {
            for (mapping, n) in rejectedBy { context.counters[step.mappings[mapping].ownTarget].rejected += n }
            for drop in dropped {
                if let link = links.first(where: { "\($0.entity).\($0.relationship)" == drop.name }) {
                    context.counters[step.mappings[link.mapping].ownTarget].dropped += drop.count
                }
            }
        }
        try context.checkRejects(rejected)
        return dropped
    }

    /// The note of links dropped as the pipeline says.
    static func note(step: String, _ dropped: Dropped) -> String {
        "step \(step): \(dropped.count) link\(dropped.count == 1 ? "" : "s") of \(dropped.name) named no row "
            + "(\(dropped.examples.joined(separator: ", "))\(dropped.count > dropped.examples.count ? ", …" : "")): dropped \(DanglingLinkRules.declaredBy)"
    }
}
