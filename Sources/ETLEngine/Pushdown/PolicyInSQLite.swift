import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// A policy's create hook called by SQLite, once per source row, from inside its mapping's
/// `INSERT … SELECT`: the rows of a policy mapping are made without leaving SQLite, and
/// linked like those of any mapping that keeps source keys.
///
///     INSERT INTO main."Book" ("id", "title", …)
///     SELECT k, etl_policy_field_1(p, 0), etl_policy_field_1(p, 1), …
///     FROM (SELECT s."id" AS k, etl_policy_1(s."id", <declared values>, <source fields>) AS p
///           FROM src."Book" s WHERE … ORDER BY s."id" LIMIT -1 OFFSET 0)
///
/// `etl_policy_<mapping>` runs the hook through the very code the create stage runs
/// (`Transformer.applyPolicy`, on the declared row and the source row as the extractor
/// reads it), keeps the row's stored values and returns the source key;
/// `etl_policy_field_<mapping>(key, i)` returns value `i` of the row kept, after checking
/// that it is that key's. SQLite runs the subquery as a co-routine, one row at a time,
/// so the row kept is always the one being inserted; were it ever to run ahead, the
/// check fails the statement instead of writing another row's values. (`OFFSET 0` keeps
/// SQLite from flattening the subquery, which would call the hook once per field.)
/// Nothing is packed or copied between the two calls.
///
/// Why: row by row, a policy's rows are read into Swift, handed between threads and
/// written back one by one, and each needs an association; most of the time goes there,
/// not into the hook. Here only the hook's own arguments and results cross.
///
/// Only what makes one row under its source row's key is done this way. A source row the
/// hook rejects (it throws), drops, multiplies, gives a uniqueKey or turns into a row of
/// another entity — or a value the extractor could not read — is irregular: the
/// statement fails, and the step starts over with the policy row by row
/// (`PushdownStage.PolicyIrregular`), which does all of that exactly as before.
enum PolicyInSQLite {
    /// SQL function running mapping `mapping`'s create hook.
    static func functionName(_ mapping: MappingID) -> String { "etl_policy_\(mapping.index)" }

    /// SQL function returning value `i` of the row mapping `mapping`'s hook made last.
    static func fieldFunction(_ mapping: MappingID) -> String { "etl_policy_field_\(mapping.index)" }

    /// Why mapping `index`'s policy cannot run inside SQLite, or nil when it can.
    static func refusal(_ step: StepPlan, _ index: MappingID, policy: Policy) -> String? {
        let mapping = step.mappings[index]
        if !policy.creates.isEmpty { return "its policy creates rows of \(policy.creates.joined(separator: ", ")) too" }
        if policy.endOfMapping != nil { return "its policy has an end-of-mapping hook" }
        if mapping.uniqueBy != nil { return "it has a uniqueBy" }
        if !step.sourceKeyTargets.contains(mapping.ownTarget) { return "its rows do not keep their source rows' keys" }
        do { _ = try sourceFields(step, index, alias: "s") } catch { return error.reason }
        return nil
    }

    /// The SQL and type of each value the create stage reads per source row
    /// (`MappingPlan.createPaths`), in slot order: the row's key, its attributes and the
    /// keys its to-one columns hold. Anything else (a path through a relationship, a value
    /// kept outside the table) is read only by the extractor.
    static func sourceFields(_ step: StepPlan, _ index: MappingID, alias: String) throws(PushdownPlan.NotPushable) -> [(sql: String, type: ExprType)] {
        let mapping = step.mappings[index]
        let layout = step.sourceLayout
        let table = layout.table(of: mapping.sourceEntity)
        let q = Database.quote
        return try mapping.createPaths.map { path throws(PushdownPlan.NotPushable) in
            guard path.root == .source, path.segments.count <= 1 else {
                throw PushdownPlan.NotPushable.policyMappingReadsPath(path.description)
            }
            guard let name = path.segments.first else { return ("\(alias).\(q(table.keyColumn))", .sourceRow(mapping.sourceEntity)) }
            if let attribute = layout.model.attribute(name, of: mapping.sourceEntity) {
                if attribute.allowsExternalStorage && layout.kind == .coredata {
                    throw PushdownPlan.NotPushable.policyReadsExternalStorage(entity: mapping.sourceEntity, attribute: name)
                }
                return ("\(alias).\(q(layout.column(ofAttribute: name, entity: mapping.sourceEntity)))", ExprType(attribute.type))
            }
            if let relationship = layout.model.relationship(name, of: mapping.sourceEntity), !relationship.isToMany,
               case .foreignKey(_, let column) = layout.storage(ofRelationship: name, entity: mapping.sourceEntity) {
                return ("\(alias).\(q(column))", .sourceRow(relationship.destination))
            }
            throw PushdownPlan.NotPushable.policyReadsNoColumn(entity: mapping.sourceEntity, attribute: name)
        }
    }

    /// The mapping's insert: `values` (the defaults' and attributes' SQL, in the insert's
    /// column order, the last `attributes` of them the attributes') are handed to the hook
    /// with the source fields, and the attributes' columns take what it returns.
    static func insert(_ step: StepPlan, _ index: MappingID, into: SQLTable, columns: [String], key: String, values: [String], attributes: Int,
                       from source: SQLTable, conditions: [String]) throws(PushdownPlan.NotPushable) -> SQLInsert {
        let fields = try sourceFields(step, index, alias: "s").map(\.sql)
        let defaults = values.dropLast(attributes)
        let declared = values.suffix(attributes)
        let call = "\(functionName(index))(" + ([key] + declared + fields).joined(separator: ", ") + ")"
        let returned = (0..<attributes).map { "\(fieldFunction(index))(p, \($0))" }
        // LIMIT -1 OFFSET 0 keeps SQLite from flattening the inner query: the hook is called
        // once per row, in key order.
        let calls = SQLSelect(["\(key) AS k", "\(call) AS p"], from: source, where: conditions, orderBy: [key], limit: "-1", offset: "0")
        return SQLInsert(into: into, columns: columns, SQLSelect(["k"] + defaults + returned, from: .select(calls, alias: nil)))
    }

    /// The row a hook made last, between its function's call and its field functions'.
    private final class MadeRow: @unchecked Sendable {
        var key: Int64?
        var values: [SQLValue] = []
    }

    /// Registers mapping `index`'s hook function and field function on `db`. A source row
    /// only row by row can make is recorded in `irregular` (read after the statement fails,
    /// to tell it from any other failure).
    static func register(_ context: StepContext, _ index: MappingID, on db: Database, irregular: SQLTranslator.RejectedValue) throws {
        let step = context.plan
        let mapping = step.mappings[index]
        guard let policy = context.policy(of: mapping) else { return }
        // The create stage's own transformer: the same conversions and checks as row by row.
        var transformer = Transformer(mapping: mapping, targets: step.targets, policy: policy,
                                      epoch: step.destinationLayout.dateEpoch, step: step.name)
        transformer.sourceEpoch = step.sourceLayout.dateEpoch
        transformer.marksExternalStorage = step.destinationLayout.kind == .coredata
        let create = try policy.preparedCreate(step: step, mapping: index)
        let types = try sourceFields(step, index, alias: "s").map(\.type)
        let attributes = mapping.attributes.count
        let epoch = step.sourceLayout.dateEpoch
        let own = mapping.ownTarget
        let entity = mapping.sourceEntity
        let name = "policy \(mapping.policy ?? "") of mapping \(mapping.name)"
        let runner = transformer
        let last = MadeRow()
        try db.createFunction(functionName(index), arity: Int32(1 + attributes + types.count)) { arguments in
            guard case .integer(let key) = arguments[0] else { throw irregular.record("\(name) was given a \(entity) row without an integer key") }
            let declared = Array(arguments[1..<(1 + attributes)])
            var fields: [Value] = []
            fields.reserveCapacity(types.count)
            for (offset, type) in types.enumerated() {
                let stored = arguments[1 + attributes + offset]
                guard let value = Value.reading(stored, as: type, epoch: epoch) else {
                    throw irregular.record("\(name) was given \(entity) row \(key), which holds a value that cannot be read (\(Value.unreadable(sql: stored, as: type) ?? ""))")
                }
                fields.append(value)
            }
            last.key = nil
            guard let create else {
                (last.key, last.values) = (key, declared)
                return .integer(key)
            }
            let made: [Transformer.NewRow]
            do {
                made = try runner.applyPolicy(create.run, bySlot: create.bySlot,
                                              own: .init(target: own, sourceKey: key, item: WorkDatabase.noItem, unique: nil, values: declared),
                                              slots: fields, key: key, item: nil)
            } catch let failure as RowFailure {
                throw irregular.record("\(name) rejected \(entity) row \(key): \(failure.reason)")
            }
            guard made.count == 1, made[0].keepsSourceKey, made[0].target == own else {
                let what = made.isEmpty ? "no row" : made.count > 1 ? "\(made.count) rows"
                    : made[0].unique != nil ? "a row with a uniqueKey" : "a row of another entity"
                throw irregular.record("\(name) made \(what) of \(entity) row \(key)")
            }
            (last.key, last.values) = (key, made[0].values)
            return .integer(key)
        }
        try db.createFunction(fieldFunction(index)) { (key: SQLValue, field: SQLValue) in
            guard case .integer(let key) = key, key == last.key, case .integer(let i) = field, last.values.indices.contains(Int(i)) else {
                throw irregular.record("SQLite asked for a value of a row other than the one \(name) made last")
            }
            return last.values[Int(i)]
        }
    }
}
