import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// The order of an ordered to-many carried from the source where its rows do not keep their
/// source keys (a `uniqueBy` mapping's rows, say): each destination link takes its position
/// from the source link it was made from, found through the mappings' own record of which
/// source row became which destination row. Without it `CoreDataLayout.finish` would number
/// the list in key order (children 5, 10, 4, 1, 3 written 1, 3, 4, 5, 10).
///
/// A destination list made from one source list keeps its positions (`Z_FOK_` values), as
/// when keys are kept; one made from several (a `uniqueBy` merging owners, or members) is
/// numbered 2048, 3072, … in the order of its first source owner, then of the source
/// positions, each member at its first place.
struct CarriedOrder {
    let step: StepPlan
    /// The mappings whose associations the step's executor recorded (`StepOutcome`).
    let associationsKept: Set<MappingID>

    /// Finds the rows mapping `index` made from the source row whose key is `sourceKey`:
    /// joins, the destination key, conditions. Nil when nothing the step kept tells.
    func finder(_ index: MappingID, sourceKey: String, prefix: String) -> (joins: [SQLJoin], key: String, conditions: [String])? {
        let mapping = step.mappings[index]
        if step.sourceKeyTargets.contains(mapping.ownTarget) { return ([], sourceKey, []) }
        if associationsKept.contains(index) {
            let a = "\(prefix)a"
            return ([WorkDatabase.joinAssociations(target: mapping.ownTarget, alias: a, source: sourceKey)], "\(a).destination", [])
        }
        // Pushed down, a uniqueBy mapping records its keys, not its associations: the source
        // row's key found again, as its relate statements find it.
        guard let uniqueBy = mapping.uniqueBy?.form else { return nil }
        let row = "\(prefix)row", u = "\(prefix)u"
        let translator = SQLTranslator(layout: step.sourceLayout, entity: mapping.sourceEntity, alias: row)
        guard var key = translator.sql(uniqueBy) else { return nil }
        let table = step.sourceLayout.table(of: mapping.sourceEntity)
        var conditions = [table.condition(alias: row)].compactMap { $0 }
        if let filter = mapping.filter {
            guard let form = filter.form, let sql = translator.sql(form) else { return nil }
            conditions.append(sql)
        }
        // The key of a passing row only: a row the filter leaves out may hold a value its
        // key cannot be made of (which would fail the statement).
        if !conditions.isEmpty { key = "(CASE WHEN \(conditions.joined(separator: " AND ")) THEN \(key) END)" }
        let rows = KeptBookkeeping.source(table.name, alias: row)
        return ([.cross(rows, on: ["\(rows.column(table.keyColumn)) = \(sourceKey)"]),
                 WorkDatabase.joinUniqueKey(scope: mapping.ownTarget, alias: u, key: key)], "\(u).destination", [])
    }

    /// Whether finding mapping `index`'s rows evaluates its uniqueBy (and filter) in SQL,
    /// which calls the engine's value functions.
    func evaluates(_ index: MappingID) -> Bool {
        !step.sourceKeyTargets.contains(step.mappings[index].ownTarget) && !associationsKept.contains(index)
    }

    /// The statement that numbers the list `into` from the source list `from`, whose owners'
    /// rows mapping(s) `owners` made and whose members' rows `members` made; nil when the
    /// rows of one of them cannot be found.
    func statement(from: KeptBookkeeping.OrderedList, into: KeptBookkeeping.OrderedList,
                   owners: [MappingID], members: [MappingID]) -> String? {
        let listed = KeptBookkeeping.source(from.table, alias: "l")
        var parts: [String] = []
        for owner in owners {
            for member in members {
                guard let o = finder(owner, sourceKey: listed.column(from.owner), prefix: "owner_"),
                      let m = finder(member, sourceKey: listed.column(from.member), prefix: "member_") else { return nil }
                let select = SQLSelect(["\(o.key) AS o", "\(m.key) AS m", "\(listed.column(from.owner)) AS so", "\(listed.column(from.order)) AS v"],
                                       from: listed, joins: o.joins + m.joins,
                                       where: ["\(listed.column(from.order)) IS NOT NULL", "\(listed.column(from.owner)) IS NOT NULL"]
                                           + o.conditions + m.conditions)
                parts.append(select.sql)
            }
        }
        let t = SQLTable.main(into.table)
        return """
            WITH pairs(o, m, so, v) AS (\(parts.joined(separator: " UNION ALL "))), \
            firsts AS (SELECT o, m, so, v FROM (SELECT o, m, so, v, row_number() OVER (PARTITION BY o, m ORDER BY so, v) AS r FROM pairs) WHERE r = 1), \
            positions AS (SELECT o, m, CASE WHEN min(so) OVER (PARTITION BY o) = max(so) OVER (PARTITION BY o) THEN v \
            ELSE 1024 * (1 + row_number() OVER (PARTITION BY o ORDER BY so, v)) END AS v FROM firsts) \
            UPDATE \(t.sql) SET \(Database.quote(into.order)) = s.v FROM positions AS s \
            WHERE \(t.column(into.owner)) = s.o AND \(t.column(into.member)) = s.m AND \(t.column(into.order)) IS NOT s.v
            """
    }
}
