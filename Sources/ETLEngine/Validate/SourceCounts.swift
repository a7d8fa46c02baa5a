import ETLStore
import ETLModel
import ETLPipeline

/// How many rows each destination entity of a step must hold, counted in SQL in the step's
/// source, not taken from the run: a checkpoint anyone can write (a create position past
/// every key, a relate stage before the rows exist) changes what the run did, and with it
/// the run's counters, but not the source. A mapping counts when it makes one row per
/// source row passing its filter (`count(*)`), one per distinct uniqueBy key, or one per
/// (source row, item) pair of a forEach over a to-many, and its filter, key and forEach
/// translate to SQL (`SQLTranslator`); an entity counts when every mapping writing it
/// counts and none of them rejected a row. Others are left to the run's counters.
struct SourceCounts {
    let step: StepPlan
    let source: Database

    /// Opens the step's source on a connection of its own, with the functions the SQL may call.
    static func open(_ path: String, functions: [String: ExpressionFunction]) throws -> Database {
        let db = try Database(path: path, mode: .readOnly, hardened: true)
        try SQLTranslator.registerValueFunction(on: db)
        try SQLTranslator.register(functions, on: db)
        return db
    }

    /// What target `target` must have made: a number of rows, or, for a uniqueBy mapping, its
    /// distinct non-null keys (a `SELECT` of them: mappings sharing keys make one row per key
    /// of them all) and its rows whose key is null (each its own row). Nil when not counted here.
    enum Expected {
        case rows(Int)
        case keys(select: String, nullRows: Int)
    }

    func expected(_ target: TargetID) throws -> Expected? {
        let t = step.targets[target]
        let m = step.mappings[t.mapping]
        guard m.policy == nil, m.ownTarget == target else { return nil }
        let layout = step.sourceLayout
        let q = Database.quote
        let table = layout.table(of: m.sourceEntity)
        let translator = SQLTranslator(layout: layout, entity: m.sourceEntity, alias: "s", itemEntity: m.itemEntity, itemAlias: "i")
        var from = "\(q(table.name)) s"
        var conditions = [table.condition(alias: "s")].compactMap { $0 }
        if let forEach = m.forEach {
            guard m.uniqueBy == nil, case .path(let path, _)? = forEach.form, path.root == .source, path.segments.count == 1,
                  let item = m.itemEntity, let r = step.sourceModel.relationship(path.segments[0], of: m.sourceEntity), r.isToMany else { return nil }
            let items = layout.table(of: item)
            // Items of one entity only: sub-entities' rows would need their own conditions.
            guard step.sourceModel.descendants(of: item).count == 1 else { return nil }
            let itemCondition = items.condition(alias: "i").map { " AND \($0)" } ?? ""
            switch layout.storage(ofRelationship: r.name, entity: m.sourceEntity) {
            case .joinTable(let join, let own, let other):
                // A pair whose item row is missing is still a pair, its item values null (as row by row reads it).
                from += " JOIN \(q(join)) j ON j.\(q(own)) = s.\(q(table.keyColumn))"
                    + " LEFT JOIN \(q(items.name)) i ON i.\(q(items.keyColumn)) = j.\(q(other))\(itemCondition)"
            case .inverseForeignKey(let other, let column):
                guard other == items.name else { return nil }
                from += " JOIN \(q(other)) i ON i.\(q(column)) = s.\(q(table.keyColumn))\(itemCondition)"
            case .foreignKey:
                return nil
            }
        }
        if let filter = m.filter {
            guard let form = filter.form, let sql = translator.sql(form) else { return nil }
            conditions.append(sql)
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if let key = m.uniqueBy {
            guard let form = key.form, let sql = translator.sql(form) else { return nil }
            let and = whereClause.isEmpty ? " WHERE " : whereClause + " AND "
            let nulls = Int(try source.scalarInt("SELECT count(*) FROM \(from)\(and)(\(sql)) IS NULL"))
            return .keys(select: "SELECT DISTINCT \(sql) FROM \(from)\(and)(\(sql)) IS NOT NULL", nullRows: nulls)
        }
        return .rows(Int(try source.scalarInt("SELECT count(*) FROM \(from)\(whereClause)")))
    }

    /// The rows `targets` (every writer of one entity) must have made, or nil when one of
    /// them is not counted here.
    func expected(_ targets: [TargetID], scopes: (TargetID) -> TargetID) throws -> Int? {
        var total = 0
        var keys: [TargetID: [String]] = [:]
        for target in targets {
            switch try expected(target) {
            case nil: return nil
            case .rows(let n): total += n
            case .keys(let select, let nullRows):
                total += nullRows
                keys[scopes(target), default: []].append(select)
            }
        }
        for selects in keys.values {
            total += Int(try source.scalarInt("SELECT count(*) FROM (" + selects.joined(separator: " UNION ") + ")"))
        }
        return total
    }
}
