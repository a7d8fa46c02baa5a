import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// A step as SQL statements that SQLite runs over the attached source (`src`) inside the
/// destination: the push-down of a declarative step. Made only when every mapping of the
/// step translates exactly (`SQLTranslator`); otherwise `make` says why, and the step
/// runs row by row. Both ways write the same store (a test compares them).
///
/// - A mapping that keeps source keys (`StepPlan.sourceKeyTargets`) or makes one row per
///   source row is one `INSERT … SELECT` per range of source keys: chunks with
///   checkpoints, as row by row.
/// - A uniqueBy mapping is two statements: `GROUP BY` the key into the work database's uniqueBy keys,
///   numbered in order of each key's first source row, then its rows from those first rows.
/// - A relationship `destination(s)('M', $source[.r])` is one statement joining the owner's
///   source rows, the source's link storage and M's destination rows, written into the
///   destination's link storage (`INSERT OR IGNORE` into a join table, `UPDATE … IS NULL`
///   of a key column: the same first-link-wins rule as the relate stage).
/// - A mapping with a policy is created row by row (`CreateStage`: its closures run on
///   the workers), and its rows are found through the associations that stage keeps; the
///   rest of the step (other mappings, every relationship) still runs inside SQLite.
///   When every source row made exactly one row under its own key (`keptRows`, checked
///   once the rows exist), they are found by key instead, as those of a mapping that
///   keeps source keys by rule: no join through the associations.
/// - A forEach mapping (`$source.r`, r to-many) is one `INSERT … SELECT` per range of source
///   keys over the pairs (source row, item) that r's storage lists, in the order row by row
///   makes them (source key, then item key), numbered from the next free key. Its to-ones
///   to `$source`'s or `$item`'s row of a mapping that keeps source keys are written by that
///   statement (`inlineLinks`); when other links remain, or the step points at its rows, a
///   second statement records each pair's row in the work database's associations, through
///   which those links are found (as those of a policy's rows).
struct PushdownPlan {
    enum Kind {
        /// Rows keep their source keys.
        case sourceKeys
        /// Rows get the next free keys, one per source row.
        case nextKeys
        /// One row per distinct uniqueBy key.
        case unique
        /// Made row by row by a policy: the work database's associations map source rows to them.
        case rowByRow
        /// One row per (source row, forEach item) pair, the next free keys;
        /// the work database's associations map the pairs to them.
        case forEach
    }

    /// A mapping's statements, as parts (`SQLStatementParts.swift`): rendered where they run.
    struct Create {
        let mapping: MappingID
        let kind: Kind
        let table: String
        /// The source rows of the mapping (`s`), before the filter: for counts.
        let count: SQLSelect
        /// `.unique`: the passing rows (each counted in its key's `rows`).
        let passed: SQLSelect
        /// `.sourceKeys`/`.nextKeys`: the key ending a chunk: bind (first key, offset).
        let bound: SQLSelect
        /// `.sourceKeys`/`.nextKeys`/`.forEach`: rows of keys in [?1, ?2] (`SourceKeyRange`);
        /// `.nextKeys`/`.forEach` number them from ?3. `.unique`: rows of keys ≥ ?1.
        var insert: SQLInsert
        /// `.unique`: fills the work database's uniqueBy keys, keys from ?1 on.
        let fillKeys: SQLInsert?
        /// `.unique`: finds a passing row whose uniqueBy key is null (a reason not to push down).
        let nullKey: SQLSelect?
        /// Evaluates every value of every passing row, and fails as soon as one is a value
        /// the row-by-row engine rejects (a conversion that cannot convert, a blob in a
        /// string attribute that is not UTF-8): then the mapping runs row by row, which
        /// rejects those rows and loads the others. Counts the values `orNull` makes null
        /// on the way (as the row-by-row engine does, for every passing row, where the
        /// insert of a uniqueBy mapping evaluates first rows only). Nil when no value can
        /// be rejected or made null. Over the source keys in [?1, ?2] (`RejectScan` splits
        /// them between two connections).
        var rejects: SQLSelect? = nil
        /// When `rejects` is there only for string attributes read: finds a blob in one of
        /// their columns, a cheap scan without which `rejects` need not run.
        var blobs: SQLSelect? = nil
        /// `.forEach`: the pairs of source keys in (?1, ?2], before the filter: for counts.
        var pairs: SQLSelect? = nil
        /// `.forEach` over a join table of a table with no rows of other entities: `pairs`
        /// counted in the join table alone (in its key's order, no source row read), for a
        /// range in which every key is a source row.
        var pairsOfEveryKey: SQLSelect? = nil
        /// `.forEach`: records the rows `insert` made in the work database's associations, bound
        /// alike; nil when nothing reads them (`pairsAreLookedUp`).
        var associate: SQLInsert? = nil
        /// `.forEach` with links written by `insert` (`inlineLinks`): counts those set in the
        /// rows of keys in [?1, ?2], for the mapping's `related`.
        var linksSet: SQLSelect? = nil
        /// `.forEach`: the links `insert` writes, in the order of their bound ranges (`InlineLink.value`).
        var links: [InlineLink] = []
        /// `.nextKeys`/`.forEach`: `insert` without the key column, for when the table's
        /// highest key is the one before ?3 (or it is empty and ?3 is 1). SQLite then gives each
        /// row, in the order of the SELECT, one more than the highest key: the keys `insert`
        /// numbers with row_number(), without the window, which buffers every row it numbers
        /// (it took two thirds of the Files pairs' statement at 1M books).
        var append: SQLInsert? = nil
    }

    /// A relationship's statement, as parts (`SQLStatementParts.swift`): rendered where it runs.
    struct Relate {
        let relationship: String
        let statement: RelateStatement
        /// The statement without a lookup of each link's target row, for when the target
        /// table's keys are contiguous (`DenseKeys`): then a key exists exactly when it lies
        /// in the range, bound as (?1, ?2). A lookup per link is a B-tree search at a random
        /// place; a range test is free.
        let dense: DenseTarget?
        /// The statement without a lookup of each link's owner row, for when the owner's
        /// table has contiguous keys (bound as ?3, ?4).
        var denseOwner: DenseOwner? = nil
        /// Set when `statement` reads the source and uniqueBy keys only, so that its links can be
        /// worked out before the rows exist (`AheadWork`).
        var ahead: AheadLinks? = nil
        /// Set when `statement` copies a source join table's pairs unchanged wherever both rows are
        /// there (`both`), so that the table may be copied whole (`VerbatimLinks`).
        var verbatim: VerbatimLinks? = nil
    }

    /// What a relate statement writes: a join table's pairs, or a key column.
    enum RelateStatement: Hashable {
        /// `INSERT OR IGNORE INTO main.table (columns) SELECT … ORDER BY 1, 2`: the pairs of
        /// a join table, `columns` in the order of its primary key.
        case pairs(SQLInsert)
        /// `UPDATE main.table SET column = x.… FROM (SELECT …) AS x WHERE … AND column IS NULL`
        /// (`firstLinkWins`): a key column set where no earlier statement set it.
        case keyColumn(SQLUpdate)

        /// The destination table it writes.
        var table: String {
            switch self {
            case .pairs(let insert): return insert.table.name
            case .keyColumn(let update): return update.table.name
            }
        }

        /// The join table whose pairs it inserts; nil for a key column.
        var joinTable: String? {
            if case .pairs(let insert) = self { return insert.table.name }
            return nil
        }

        var sql: String {
            switch self {
            case .pairs(let insert): return insert.sql
            case .keyColumn(let update): return update.sql
            }
        }
    }

    /// What a relate statement that reads only the source and the uniqueBy keys of some
    /// mappings writes: `INSERT OR IGNORE INTO main.table (columns) SELECT … ORDER BY 1, 2`.
    struct AheadLinks {
        /// The statement (`RelateStatement.pairs`).
        let statement: SQLInsert
        /// The uniqueBy mappings whose keys (`work.unique_key`) the statement reads.
        let keysOf: [MappingID]
        /// The pairs of a range of the owner rows' source keys, when the statement reads the
        /// owner table in key order (not driven by a source join table).
        let ranges: Ranges?

        struct Ranges {
            /// The source table of the owner rows, and its key column (the rowid).
            let table: String
            let key: String
            /// `pairs` of the owner rows whose keys lie in (?1, ?2), bounds included.
            let pairs: SQLSelect
        }

        /// The join table.
        var table: String { statement.table.name }

        /// The statement's `SELECT` without its `ORDER BY`: the pairs it inserts, in no order.
        var pairs: SQLSelect { statement.select.ordered(by: []) }
    }

    struct DenseOwner {
        /// The owner's destination table and key column.
        let table: String
        let key: String
        /// Only the owner's rows in range; `both`: the target's too (as `DenseTarget.statement`).
        let statement: RelateStatement
        let both: RelateStatement?
    }

    /// A to-one of a forEach pair's row that the create statement writes with the row, so
    /// that no relate statement has to find the row again through the associations and
    /// rewrite it (what the hand-written SQL does: the pair's keys are its links).
    struct InlineLink {
        let relationship: String
        /// The key column in the pair's own table.
        let column: String
        /// The target row's key, null when there is none: as the relate statement links.
        /// Bound: the target table's keys as (?n, ?n+1) when they are contiguous (then a key
        /// in that range has its row, no lookup needed), else an empty range.
        let value: String
        /// The target's table and key column.
        let table: String
        let key: String
    }

    struct DenseTarget {
        /// The target's destination table and key column.
        let table: String
        let key: String
        let statement: RelateStatement
    }

    /// The mappings pushed down (not `rowByRow`), in order.
    let creates: [Create]
    /// Mappings created row by row, with the reason.
    let rowByRow: [MappingID: String]
    /// Per mapping, its relationship statements (none: no entry).
    let relates: [MappingID: [Relate]]
    /// Mappings whose policy SQLite calls from their insert (`PolicyInSQLite`): their rows
    /// keep their source keys, as those of a `.sourceKeys` mapping.
    var policiesInSQLite: Set<MappingID> = []

    /// The step's statements, or why it cannot be pushed down.
    /// - Parameter primaryKey: the primary-key columns of a destination table, in order.
    /// - Parameter policy: the registered policy a mapping names, if any.
    /// - Parameter keptRows: mappings made by a policy in which every source row (of the
    ///   source entity) made exactly one row of the mapping's table, under the source
    ///   row's key, and the table has no other rows.
    /// - Parameter policiesRowByRow: why policies run row by row even where SQLite could
    ///   call them (`PolicyInSQLite`): a source row's was irregular there, in an earlier try.
    static func make(_ step: StepPlan, policy: (MappingPlan) -> Policy?, keptRows: Set<MappingID> = [],
                     policiesRowByRow: RowByRowReason? = nil,
                     primaryKey: @escaping (String) throws -> [String]) throws -> PushdownPlan {
        // By mapping, in order.
        var kinds: [Kind] = []
        var rowByRow: [MappingID: String] = [:]
        var policiesInSQLite: Set<MappingID> = []
        let keeping = step.sourceKeyTargets
        let scopes = step.uniqueKeyScopes
        for index in step.mappingIDs {
            let mapping = step.mappings[index]
            let own = mapping.ownTarget
            if scopes[own] != own {
                throw NotPushable.sharesUniqueByKeys(mapping: mapping.name, with: step.targets[scopes[own]].name)
            }
            if mapping.forEach != nil {
                if mapping.policy != nil { throw NotPushable.forEachWithPolicy(mapping: mapping.name) }
                if mapping.uniqueBy != nil { throw NotPushable.forEachWithUniqueBy(mapping: mapping.name) }
                kinds.append(.forEach)
                continue
            }
            if let policyName = mapping.policy {
                // Declared links of the policy's rows are found through its associations; links
                // a relate hook computes are not, so such a step runs row by row as a whole.
                guard let policy = policy(mapping) else { throw NotPushable.unregisteredPolicy(mapping: mapping.name, policy: policyName) }
                if policy.relate != nil { throw NotPushable.policyWithRelateHook(mapping: mapping.name) }
                if let why = policiesRowByRow?.description ?? PolicyInSQLite.refusal(step, index, policy: policy) {
                    rowByRow[index] = "it has a policy, and \(why)"
                    kinds.append(.rowByRow)
                } else {
                    policiesInSQLite.insert(index)
                    kinds.append(.sourceKeys)
                }
                continue
            }
            kinds.append(keeping.contains(own) ? .sourceKeys : mapping.uniqueBy != nil ? .unique : .nextKeys)
        }
        // Those rows are linked like rows that keep their source keys by rule, every source row passing.
        let linking = zip(step.mappingIDs, kinds).map { keptRows.contains($0) && $1 == .rowByRow ? Kind.sourceKeys : $1 }
        let builder = StatementBuilder(step: step, kinds: linking, everyRow: keptRows, policiesInSQLite: policiesInSQLite, primaryKey: primaryKey)
        var creates: [Create] = []
        var relates: [MappingID: [Relate]] = [:]
        for (index, kind) in zip(step.mappingIDs, kinds) {
            if kind != .rowByRow { creates.append(try builder.create(index)) }
            let statements = try builder.relates(index)
            if !statements.isEmpty { relates[index] = statements }
        }
        return PushdownPlan(creates: creates, rowByRow: rowByRow, relates: relates, policiesInSQLite: policiesInSQLite)
    }

    /// What `make`'s plan for a step of a kept plan is kept under (`PlanMemo`): the step, and
    /// the rest `make` decides from — the mappings whose rows were kept, and what it asks of
    /// the policies (whether each mapping's is registered, and has a relate hook).
    static func memoKey(_ step: StepPlan, policy: (MappingPlan) -> Policy?, keptRows: Set<MappingID>, policiesRowByRow: RowByRowReason?) -> MemoKey {
        let policies = step.mappings.indices.map { index -> MemoKey.PolicyKind in
            let mapping = step.mappings[index]
            guard mapping.policy != nil else { return .none }
            guard let registered = policy(mapping) else { return .unregistered }
            if registered.relate != nil { return .withRelateHook }
            return PolicyInSQLite.refusal(step, MappingID(index), policy: registered) == nil ? .callableBySQLite : .registered
        }
        return MemoKey(step: step.index, stepName: step.name, keptRows: keptRows.map(\.index).sorted(), policies: policies,
                       policiesRowByRow: policiesRowByRow)
    }

    /// What a step's push-down plan is made from besides the step's layout: kept in the
    /// plan's memo under it (`PushdownStage.makePlan`), with the plan or why the step
    /// cannot be pushed down.
    struct MemoKey: PlanMemoKey {
        typealias Value = Result<PushdownPlan, NotPushable>
        /// What a mapping's policy is, as far as the statements care.
        enum PolicyKind: Hashable, Sendable { case none, unregistered, withRelateHook, callableBySQLite, registered }
        /// The name too: a run's steps are renumbered where steps are fused (`FusionCheck`).
        let step: Int
        let stepName: String
        let keptRows: [Int]
        let policies: [PolicyKind]
        let policiesRowByRow: RowByRowReason?
    }
}

/// Writes the statements of `PushdownPlan`.
private struct StatementBuilder {
    let step: StepPlan
    /// By mapping, in order: `kind(_:)`.
    let kinds: [PushdownPlan.Kind]
    /// Mappings whose every source row made a row (`keptRows`): their filter is passed.
    let everyRow: Set<MappingID>
    let policiesInSQLite: Set<MappingID>
    let primaryKey: (String) throws -> [String]
    let q = Database.quote

    typealias NotPushable = PushdownPlan.NotPushable

    func kind(_ mapping: MappingID) -> PushdownPlan.Kind { kinds[mapping.index] }

    private func source(_ index: MappingID, alias: String) -> (translator: SQLTranslator, table: EntityTable) {
        let mapping = step.mappings[index]
        return (SQLTranslator(layout: step.sourceLayout, entity: mapping.sourceEntity, alias: alias,
                              itemEntity: kind(index) == .forEach ? mapping.itemEntity : nil),
                step.sourceLayout.table(of: mapping.sourceEntity))
    }

    private func translate(_ expression: CompiledExpression?, _ translator: SQLTranslator, _ what: String) throws(NotPushable) -> String? {
        guard let expression else { return nil }
        guard let form = expression.form, let sql = translator.sql(form) else {
            throw NotPushable.noExactSQLForm(what: what, expression: expression.text)
        }
        return sql
    }

    /// The WHERE conditions selecting mapping `index`'s passing source rows under `alias`.
    func passing(_ index: MappingID, alias: String) throws(NotPushable) -> [String] {
        let (translator, table) = source(index, alias: alias)
        let mapping = step.mappings[index]
        if everyRow.contains(index) { return [table.condition(alias: alias)].compactMap { $0 } }
        return [table.condition(alias: alias), try translate(mapping.filter, translator, "the filter of mapping \(mapping.name)")].compactMap { $0 }
    }

    /// `passing` with the row guard of mapping `index`: every row of the range has each
    /// source column the mapping reads tested once (`etl_readable`), filtered out or not,
    /// whatever its expressions leave unevaluated (a CASE, a coalesce), as row by row reads
    /// them all; a row holding a value the reading rule does not read fails the statement
    /// (`etl_readable`), and the step runs row by row, which rejects the row or makes the
    /// value null (`"unreadable": "null"`), and counts it. A filter is evaluated
    /// only after the guard (one CASE: SQLite may evaluate WHERE terms in any order).
    func rowGuard(_ index: MappingID, alias: String, passing: [String]) -> [String] {
        let mapping = step.mappings[index]
        let layout = step.sourceLayout
        let readByTheRule = attributesReadByTheRule(index)
        var columns: [String] = []
        var codes = ""
        var pairs: [String] = []
        for path in mapping.createPaths where path.root == .source && path.segments.count == 1 {
            guard let attribute = layout.model.attribute(path.segments[0], of: mapping.sourceEntity),
                  !(attribute.allowsExternalStorage && layout.kind == .coredata), !readByTheRule.contains(attribute.name) else { continue }
            let column = "\(alias).\(Database.quote(layout.column(ofAttribute: attribute.name, entity: mapping.sourceEntity)))"
            guard let code = SQLTranslator.readableCode(ExprType(attribute.type)), !columns.contains(column) else { continue }
            columns.append(column)
            codes.append(code)
            pairs.append("'$source.\(attribute.name)', \(column)")
        }
        guard !pairs.isEmpty else { return passing }
        let table = layout.table(of: mapping.sourceEntity).condition(alias: alias)
        let filter = passing.filter { $0 != table }
        let then = filter.isEmpty ? "1" : "(" + filter.joined(separator: " AND ") + ")"
        // One call a row, whose values of their type's own storage class pass on their class
        // alone; the filter only after it (in order: CASE evaluates its WHENs one after the other).
        let guarded = "(CASE WHEN \(SQLTranslator.readableFunction)('\(codes)', \(pairs.joined(separator: ", "))) THEN \(then) END)"
        return [table].compactMap { $0 } + [guarded]
    }

    /// The source attributes whose every read by mapping `index` fails its statement on a
    /// value the reading rule does not read (`SQLTranslator.readsByTheRule`: `date()`,
    /// `boolean()`, `trim()` … of a string attribute), on every row the guard would test:
    /// the row guard leaves them out, for one call a value less. Only for a mapping whose
    /// statement evaluates every attribute on every row of its range: no filter, uniqueBy,
    /// forEach or policy.
    private func attributesReadByTheRule(_ index: MappingID) -> Set<String> {
        let mapping = step.mappings[index]
        guard mapping.filter == nil, mapping.uniqueBy == nil, mapping.forEach == nil, mapping.policy == nil else { return [] }
        let translator = source(index, alias: "s").translator
        var reads: [String: Int] = [:], byTheRule: [String: Int] = [:]
        for assignment in mapping.attributes {
            guard case .expression(let expression) = assignment.source else { continue }
            guard let form = expression.form else { return [] }
            for path in form.readPaths { reads[path.description, default: 0] += 1 }
            for path in translator.readsByTheRule(form) { byTheRule[path.description, default: 0] += 1 }
        }
        return Set(byTheRule.filter { reads[$0.key] == $0.value }.keys.compactMap { name in
            mapping.createPaths.first { $0.description == name && $0.root == .source && $0.segments.count == 1 }?.segments[0]
        })
    }

    func uniqueKey(_ index: MappingID, alias: String) throws(NotPushable) -> String {
        let mapping = step.mappings[index]
        return try translate(mapping.uniqueBy, source(index, alias: alias).translator, "the uniqueBy of mapping \(mapping.name)")!
    }

    func create(_ index: MappingID) throws(NotPushable) -> PushdownPlan.Create {
        let mapping = step.mappings[index]
        var (translator, table) = source(index, alias: "s")
        // The row guard below tests every value of the row the mapping reads.
        translator.rowGuarded = true
        let sourceTable = SQLTable.source(table.name, alias: "s")
        let key = sourceTable.column(table.keyColumn)
        let layout = step.destinationLayout
        let destination = layout.table(of: mapping.destinationEntity)
        var columns = [destination.keyColumn] + destination.insertDefaults.map(\.column)
        var values = destination.insertDefaults.map(\.value.sqlLiteral)
        // `.unique`: values that are the uniqueBy key itself are read from the work database's uniqueBy keys.
        // (Read as the values are, the text tested by the row guard: a value that is the key is read from the keys.)
        let unique = kind(index) == .unique ? try translate(mapping.uniqueBy, translator, "the uniqueBy of mapping \(mapping.name)") : nil
        var readsSource = false
        var evaluated: [String] = []
        var mayReject = [mapping.filter, mapping.uniqueBy].contains { $0?.form.map(Self.mayReject) ?? false }
        for assignment in mapping.attributes {
            if assignment.attribute.allowsExternalStorage && layout.kind == .coredata {
                throw NotPushable.externalStorage(entity: mapping.destinationEntity, attribute: assignment.attribute.name)
            }
            columns.append(layout.column(ofAttribute: assignment.attribute.name, entity: mapping.destinationEntity))
            switch assignment.source {
            case .constant(let value): values.append(value.sqlLiteral)
            case .expression(let expression):
                guard let sql = translator.stored(expression, as: assignment.attribute.type, epoch: layout.dateEpoch) else {
                    throw NotPushable.attributeWithoutExactSQLForm(entity: mapping.destinationEntity, attribute: assignment.attribute.name,
                                                                   mapping: mapping.name, expression: expression.text)
                }
                evaluated.append(sql)
                if let form = expression.form, Self.mayReject(form) { mayReject = true }
                if sql == unique {
                    values.append("u.key")
                } else {
                    values.append(sql)
                    readsSource = true
                }
            }
        }
        let pairs = kind(index) == .forEach ? try forEachPairs(index) : nil
        // A pair's to-ones written with its row (`inlineLinks`): their columns, and the joins finding their targets.
        let links = try inlineLinks(index)
        columns += links.map(\.column)
        values += links.map(\.value)
        let into = SQLTable.main(destination.name)
        // A forEach mapping's rows are its pairs; its counts and chunk bounds stay the source rows'.
        let rows = SQLSelect([], from: sourceTable, joins: pairs?.joins ?? [])
        let all = [table.condition(alias: "s")].compactMap { $0 }
        let passing = rowGuard(index, alias: "s", passing: try self.passing(index, alias: "s"))
        let inKeys = ["\(key) >= ?1", "\(key) <= ?2"]
        let count = SQLSelect(["count(*)"], from: sourceTable, where: all)
        let passed = WorkDatabase.rowsWithUniqueKeys(scope: mapping.targets[0], from: "?1")
        let bound = SQLSelect([key], from: sourceTable, where: all + ["\(key) >= ?1"], orderBy: [key], limit: "1", offset: "?2")
        // CASE: the values are evaluated only for passing rows, as row by row. Each value is
        // only tested for null, in SQL: Swift is called only where the value needs it.
        let each = "(" + (evaluated + [unique].compactMap { $0 }).map { "(\($0) IS NULL)" }.joined(separator: " + ") + ") >= 0"
        let rejects = mayReject
            ? rows.selecting(["count(*)"]).filtered(inKeys + [passing.isEmpty ? each : "CASE WHEN " + passing.joined(separator: " AND ") + " THEN \(each) END"])
            : nil
        // The string attributes read, when no conversion is: only a blob in one can be rejected.
        let forms = ([mapping.filter, mapping.uniqueBy] + mapping.attributes.map { assignment -> CompiledExpression? in
            if case .expression(let e) = assignment.source { return e } else { return nil }
        }).compactMap { $0?.form }
        var strings = Set<String>()
        let converts = forms.contains { $0.contains { if case .convert = $0 { return true } else { return false } } }
        for form in forms {
            _ = form.contains {
                if case .path(let path, .string) = $0, path.segments.count == 1,
                   step.sourceLayout.model.attribute(path.segments[0], of: mapping.sourceEntity) != nil {
                    strings.insert(sourceTable.column(step.sourceLayout.column(ofAttribute: path.segments[0], entity: mapping.sourceEntity)))
                }
                return false
            }
        }
        // A forEach mapping's passing pairs in key order, as the loader hands out keys: the
        // source key, then the item's; numbered so from ?3.
        let numberedPairs = pairs.map { pairs in
            (inRange: rows.filtered(passing + inKeys).ordered(by: [key, pairs.item]),
             numbered: "?3 - 1 + row_number() OVER (ORDER BY \(key), \(pairs.item))")
        }
        var create = try self.create(index, kind: kind(index), into: into, columns: columns, values: values, source: sourceTable, rows: rows, key: key,
                                     passing: passing, unique: unique, readsSource: readsSource,
                                     count: count, passed: passed, bound: bound, pairs: numberedPairs)
        create.rejects = rejects
        if policiesInSQLite.contains(index) {
            // (Never a forEach mapping: no pairs, no links written with the rows.)
            create.insert = try PolicyInSQLite.insert(step, index, into: into, columns: columns, key: key, values: values,
                                                      attributes: mapping.attributes.count, from: sourceTable, conditions: passing + inKeys)
        }
        if let pairs, let numberedPairs {
            create.links = links
            if try pairsAreLookedUp(index) {
                create.associate = WorkDatabase.associate(target: mapping.targets[0], destination: numberedPairs.numbered, source: key,
                                                          item: pairs.item, of: numberedPairs.inRange)
            }
            if !links.isEmpty {
                let key = into.column(destination.keyColumn)
                create.linksSet = SQLSelect([links.map { "count(\(q($0.column)))" }.joined(separator: " + ")], from: into,
                                            where: ["\(key) >= ?1", "\(key) <= ?2"])
            }
            create.pairs = rows.selecting(["count(*)"]).filtered(all + inKeys)
            if let listed = pairs.listedIn, all.isEmpty {
                // The pairs the join finds: each listed key equal to a source key (as `=` compares).
                let listing = SQLTable.source(listed.table, alias: "p")
                let own = listing.column(listed.own)
                create.pairsOfEveryKey = SQLSelect(["count(*)"], from: listing,
                                                   where: ["\(own) >= ?1", "\(own) <= ?2", "\(own) = CAST(\(own) AS INTEGER)"])
            }
            // The string columns found above are the source entity's; the item's are not among them.
            create.blobs = nil
        } else if rejects != nil, !converts, !strings.isEmpty {
            create.blobs = rows.selecting(["1"]).filtered([strings.sorted().map { "\($0) >= x''" }.joined(separator: " OR ")]).limited("1")
        }
        return create
    }

    /// Whether a value of this form can be one the row-by-row engine rejects or makes null
    /// on purpose: a conversion, or a string attribute read (its blob may not be UTF-8).
    static func mayReject(_ form: ExpressionForm) -> Bool {
        form.contains {
            switch $0 {
            case .path(let path, .string): return !path.segments.isEmpty
            case .convert: return true  // fails, or is made null on purpose
            default: return false
            }
        }
    }

    /// - Parameter rows: the mapping's source rows (`source`, `s`), with the joins to its forEach pairs.
    /// - Parameter pairs: `.forEach`: the passing pairs of a range of source keys, in the order
    ///   their rows are numbered, and that number (from ?3).
    private func create(_ index: MappingID, kind: PushdownPlan.Kind, into: SQLTable, columns: [String], values: [String],
                        source: SQLTable, rows: SQLSelect, key: String, passing: [String], unique: String?, readsSource: Bool,
                        count: SQLSelect, passed: SQLSelect, bound: SQLSelect,
                        pairs: (inRange: SQLSelect, numbered: String)?) throws(NotPushable) -> PushdownPlan.Create {
        let mapping = step.mappings[index]
        switch kind {
        case .sourceKeys, .nextKeys:
            // New keys numbered from ?3 in source key order, as the loader hands them out: above
            // every kept key of the table (`StepPlan.firstNewKeys`), whatever ran before.
            let newKey = kind == .sourceKeys ? key : "?3 - 1 + row_number() OVER (ORDER BY \(key))"
            let select = rows.filtered(passing + ["\(key) >= ?1", "\(key) <= ?2"]).ordered(by: [key])
            let insert = SQLInsert(into: into, columns: columns, select.selecting([newKey] + values))
            var create = PushdownPlan.Create(mapping: index, kind: kind, table: into.name, count: count, passed: passed,
                                             bound: bound, insert: insert, fillKeys: nil, nullKey: nil)
            if kind == .nextKeys { create.append = SQLInsert(into: into, columns: Array(columns.dropFirst()), select.selecting(values)) }
            return create
        case .unique:
            let unique = unique!
            let target = mapping.targets[0]
            // Keys numbered from ?1 in order of their first source row, as the loader hands them out.
            // (The key is computed once per row in the inner query, which groups by its alias.)
            // Written in key order: appended to the table's B-tree, not scattered over it.
            let firsts = rows.selecting(["\(unique) AS k", "min(\(key)) AS first", "count(*) AS n"]).filtered(passing)
            let grouped = firsts.grouped(by: ["k"])
            let fill = WorkDatabase.addUniqueKeys(scope: target, key: "k", destination: "?1 - 1 + row_number() OVER (ORDER BY first)",
                                                  source: "first", rows: "n", of: SQLSelect([], from: .select(grouped, alias: nil), orderBy: ["k"]))
            // Values of the first source row of each key; none to read when they all are the key.
            let keys = WorkDatabase.uniqueKeys(scope: target, alias: "u", from: "?1")
            let join = readsSource ? [SQLJoin.inner(source, on: ["\(key) = u.source"])] : []
            let insert = SQLInsert(into: into, columns: columns,
                                   SQLSelect(["u.destination"] + values, from: keys.table, joins: join, where: keys.conditions,
                                             orderBy: ["u.destination"]))
            // A null key is not deduplicated (each such row is its own), which GROUP BY cannot say:
            // the engine looks for one first, unless the filter already excludes it.
            let excluded = mapping.filter?.form?.conjuncts.contains(.isNull(mapping.uniqueBy!.form!, false)) ?? false
            let nullKey = excluded ? nil : rows.selecting(["1"]).filtered(passing + ["\(unique) IS NULL"]).limited("1")
            return .init(mapping: index, kind: .unique, table: into.name, count: count, passed: passed,
                         bound: bound, insert: insert, fillKeys: fill, nullKey: nullKey)
        case .forEach:
            let pairs = pairs!
            var create = PushdownPlan.Create(mapping: index, kind: .forEach, table: into.name, count: count, passed: passed, bound: bound,
                                             insert: SQLInsert(into: into, columns: columns, pairs.inRange.selecting([pairs.numbered] + values)),
                                             fillKeys: nil, nullKey: nil)
            create.append = SQLInsert(into: into, columns: Array(columns.dropFirst()), pairs.inRange.selecting(values))
            return create
        case .rowByRow:
            preconditionFailure("mapping \(mapping.name) is created row by row")
        }
    }

    /// The joins that turn mapping `index`'s source rows (`s`) into its forEach pairs, and
    /// the item's key: the rows of `$source.r`'s storage naming each source row, in the
    /// item order row by row reads them (`SourceQuery`), and the item's own row (`i`) when
    /// an expression reads it (left joined: a missing item reads as nulls, as row by row);
    /// `listedIn`: the join table and its column of source keys, when a join table lists them.
    func forEachPairs(_ index: MappingID) throws(NotPushable) -> (joins: [SQLJoin], item: String, listedIn: (table: String, own: String)?) {
        let mapping = step.mappings[index]
        let layout = step.sourceLayout
        let key = SQLTable.source(layout.table(of: mapping.sourceEntity).name, alias: "s").column(layout.table(of: mapping.sourceEntity).keyColumn)
        guard case .path(let path, _)? = mapping.forEach?.form, path.root == .source, path.segments.count == 1,
              let r = layout.model.relationship(path.segments[0], of: mapping.sourceEntity), r.isToMany,
              let itemEntity = mapping.itemEntity else {
            throw NotPushable.forEachNotOverSourceRelationship(mapping: mapping.name)
        }
        var joins: [SQLJoin]
        let item: String
        var listedIn: (table: String, own: String)?
        switch layout.storage(ofRelationship: r.name, entity: mapping.sourceEntity) {
        case .joinTable(let table, let own, let other):
            let p = SQLTable.source(table, alias: "p")
            joins = [.cross(p, on: ["\(p.column(own)) = \(key)"])]
            item = p.column(other)
            listedIn = (table, own)
        case .inverseForeignKey(let table, let column):
            let p = SQLTable.source(table, alias: "p")
            joins = [.cross(p, on: ["\(p.column(column)) = \(key)"])]
            item = p.column(layout.table(of: r.destination).keyColumn)
        case .foreignKey:
            throw NotPushable.forEachOverToOneColumn(mapping: mapping.name)
        }
        let forms = ([mapping.filter] + mapping.attributes.map { assignment -> CompiledExpression? in
            if case .expression(let e) = assignment.source { return e } else { return nil }
        }).compactMap { $0?.form }
        if forms.contains(where: { $0.contains { if case .path(let p, _) = $0 { return p.root == .item } else { return false } } }) {
            let items = SQLTable.source(layout.table(of: itemEntity).name, alias: "i")
            joins.append(.left(items, on: ["\(items.column(layout.table(of: itemEntity).keyColumn)) = \(item)"]))
        }
        return (joins, item, listedIn)
    }

    /// The to-ones of forEach mapping `index` written by its create statement, in the order
    /// of their columns: `destination('M', $source)` or `destination('M', $item)` stored
    /// as a key column of the pair's own table, where M keeps source keys (its row is found
    /// by key) and is created before this mapping (its rows exist when the pairs are made),
    /// and no other relationship of the step writes that column (the relate stage's
    /// first-link-wins order between two writers would change). Each is the target's row
    /// of that key, left joined: a missing one (a filtered target, a dangling item) links
    /// nothing, as the relate statement's join finds nothing.
    func inlineLinks(_ index: MappingID) throws(NotPushable) -> [PushdownPlan.InlineLink] {
        guard kind(index) == .forEach else { return [] }
        let mapping = step.mappings[index]
        let layout = step.destinationLayout
        let item = try forEachPairs(index).item
        let sourceKey = "s.\(q(step.sourceLayout.table(of: mapping.sourceEntity).keyColumn))"
        var found: [(relationship: String, column: String, argument: String, target: EntityTable)] = []
        for assignment in mapping.relationships {
            guard case .destinations(let targetName, .path(let path, _), false)? = assignment.expression.form,
                  path.segments.isEmpty, path.root == .source || path.root == .item,
                  let target = step.mappingIDs.first(where: { step.mappings[$0].name == targetName }),
                  step.createRank(of: target) < step.createRank(of: index), kind(target) == .sourceKeys,
                  step.mappings[target].sourceEntity == (path.root == .source ? mapping.sourceEntity : mapping.itemEntity),
                  case .foreignKey(let table, let column) = layout.storage(ofRelationship: assignment.relationship.name, entity: mapping.destinationEntity),
                  table == layout.table(of: mapping.destinationEntity).name,
                  writers(of: table, column) == 1 else { continue }
            let targetTable = layout.table(of: step.mappings[target].destinationEntity)
            // Contiguous keys say a row exists, not whose it is: not for a shared table; and
            // the table must be complete when the pairs are made: no later mapping writes it.
            guard targetTable.discriminator == nil, step.writersByTable[targetTable.name] == 1 else { continue }
            found.append((assignment.relationship.name, column, path.root == .source ? sourceKey : item, targetTable))
        }
        // Numbered in column order: link n's range is bound as (?4 + 2n, ?5 + 2n).
        return found.sorted { $0.column < $1.column }.enumerated().map { number, link in
            let key = q(link.target.keyColumn), argument = link.argument
            let value = "CASE WHEN \(Database.keyBetween(argument, "?\(4 + 2 * number)", "?\(5 + 2 * number)")) THEN \(argument) "
                + "ELSE (SELECT t.\(key) FROM main.\(q(link.target.name)) t WHERE t.\(key) = \(argument)) END"
            return .init(relationship: link.relationship, column: link.column, value: value, table: link.target.name, key: link.target.keyColumn)
        }
    }

    /// How many relationships of the step store their links in `column` of `table`.
    private func writers(of table: String, _ column: String) -> Int {
        var count = 0
        for mapping in step.mappings {
            for assignment in mapping.relationships {
                switch step.destinationLayout.storage(ofRelationship: assignment.relationship.name, entity: mapping.destinationEntity) {
                case .foreignKey(table, column), .inverseForeignKey(table, column): count += 1
                default: break
                }
            }
        }
        return count
    }

    /// Whether forEach mapping `index`'s rows must be recorded in the associations: a
    /// relationship of its own is linked by a relate statement (which reads the pairs
    /// there), or one of the step may point at its rows (only the associations find them).
    func pairsAreLookedUp(_ index: MappingID) throws(NotPushable) -> Bool {
        let mapping = step.mappings[index]
        if try inlineLinks(index).count < mapping.relationships.count { return true }
        return step.mappings.contains { other in
            other.relationships.contains { assignment in
                guard case .destinations(let target, _, _)? = assignment.expression.form else { return true }
                return target == mapping.name
            }
        }
    }

    /// Where mapping `index`'s destination rows come from, for the source row `alias`:
    /// the joins to add, the destination key, and conditions.
    /// - Parameter inRange: a source-keyed mapping's row is found by a range test on the
    ///   key (bound as ?1, ?2), not a lookup: right when its table's keys are contiguous.
    private func destinationKey(of index: MappingID, row alias: String, prefix: String,
                                sameRowAs owner: (alias: String, mapping: MappingID)?,
                                inRange: Bool = false) throws(NotPushable) -> (joins: [SQLJoin], key: String, conditions: [String]) {
        let mapping = step.mappings[index]
        let layout = step.destinationLayout
        switch kind(index) {
        case .sourceKeys:
            // This mapping's rows are under their source keys; a table shared by an inheritance
            // hierarchy holds other entities' kept rows too, told apart by the discriminator.
            let table = layout.table(of: mapping.destinationEntity)
            // (The unary + keeps SQLite from reading the rows through an index of the key
            // instead of in the order chosen for the output.)
            if inRange { return ([], alias, [Database.keyBetween("+\(alias)", "?1", "?2")]) }
            let d = SQLTable.main(table.name, alias: "\(prefix)d")
            let key = d.column(table.keyColumn)
            return ([.cross(d, on: ["\(key) = \(alias)"] + [table.condition(alias: d.alias!)].compactMap { $0 })], key, [])
        case .unique:
            var joins: [SQLJoin] = []
            var conditions: [String] = []
            let row: String
            if let owner, step.mappings[owner.mapping].sourceEntity == mapping.sourceEntity {
                row = owner.alias
                conditions = try passing(index, alias: row)
            } else {
                row = "\(prefix)m"
                let table = step.sourceLayout.table(of: mapping.sourceEntity)
                let rows = SQLTable.source(table.name, alias: row)
                joins.append(.cross(rows, on: ["\(rows.column(table.keyColumn)) = \(alias)"]))
                conditions = try passing(index, alias: row)
            }
            let u = "\(prefix)u"
            joins.append(WorkDatabase.joinUniqueKey(scope: mapping.targets[0], alias: u, key: try uniqueKey(index, alias: row)))
            return (joins, "\(u).destination", conditions)
        case .nextKeys:
            throw NotPushable.sharesDestinationTable(mapping: mapping.name)
        case .rowByRow, .forEach:
            // Every row the policy (or the forEach) made of the mapping's own entity from that
            // source row, as destinations() looks them up (`relates` allows nothing else).
            let a = "\(prefix)a"
            return ([WorkDatabase.joinAssociations(target: mapping.targets[0], alias: a, source: alias)], "\(a).destination", [])
        }
    }

    func relates(_ index: MappingID) throws -> [PushdownPlan.Relate] {
        let mapping = step.mappings[index]
        guard !mapping.relationships.isEmpty else { return [] }
        let sourceLayout = step.sourceLayout
        let layout = step.destinationLayout
        let (_, ownerTable) = source(index, alias: "a")
        let owners = SQLTable.source(ownerTable.name, alias: "a")
        let ownerKeyColumn = owners.column(ownerTable.keyColumn)
        var storages: [(storage: RelationshipStorage, relationship: String)] = []
        var result: [PushdownPlan.Relate] = []
        let inline = try inlineLinks(index)
        let assignments = mapping.relationships.filter { assignment in !inline.contains(where: { $0.relationship == assignment.relationship.name }) }
        // A relationship into a hierarchy is one statement per mapping it finds rows of (`LookupParts`).
        for (assignment, lookup) in assignments.flatMap({ a in LookupParts.of(a, layout: layout, entity: mapping.destinationEntity, grouped: kind(index) == .unique).map { (a, $0) } }) {
            let relationship = assignment.relationship
            let what = "the relationship \(mapping.destinationEntity).\(relationship.name) in mapping \(mapping.name)"
            let ownerIsPair = kind(index) == .forEach
            // `target`: the mapping whose rows the relationship points at (a policy's extra
            // rows, 'Mapping/Entity', are no mapping's: such a relationship is not pushed down).
            guard case .destinations(let targetName, let argument, let many)? = lookup,
                  let target = step.mappingIDs.first(where: { step.mappings[$0].name == targetName }),
                  case .path(let path, _) = argument, path.root == .source || ownerIsPair,
                  path.segments.count <= (ownerIsPair ? 0 : 1) else {
                throw NotPushable.notDestinationOfSource(what: what, pairOwner: ownerIsPair)
            }
            let storage = layout.storage(ofRelationship: relationship.name, entity: mapping.destinationEntity)
            if kind(target) == .rowByRow || kind(target) == .forEach {
                // A policy may make several rows of one source row: destination() fails the row
                // then, and a key column holds one; only sets of links are written alike in SQL.
                let maker = kind(target) == .forEach ? "a forEach" : "a policy"
                if case .foreignKey = storage { throw NotPushable.toOneToRowsMadeBy(what: what, mapping: targetName, maker: maker) }
                if !many { throw NotPushable.destinationOnRowsMadeBy(what: what, mapping: targetName, maker: maker) }
            }
            // Two relationships of one mapping on one storage would be linked in another order.
            if storages.contains(where: { $0.storage == storage && $0.relationship != relationship.name }) {
                throw NotPushable.sharesStorage(what: what)
            }
            storages.append((storage, relationship.name))

            // The rows are read in the order of the first table; every other one is joined
            // to it (CROSS JOIN keeps SQLite from reordering), so that links come out in
            // the order of the destination's key wherever the source allows.
            var from = owners
            var joins: [SQLJoin] = []
            // A policy's rows have an association exactly when their source row passed.
            var conditions = kind(index) == .rowByRow ? [] : try passing(index, alias: "a")
            var ownerSourceKey = ownerKeyColumn
            let argumentRow: String
            var singleValued = true
            // Driven by a join table: the join finding each link's owner row in the source, and
            // the owner's own key there (`ownerInRange`).
            var ownerJoin: SQLJoin?
            var ownerListed: String?
            // The source join table driving the statement, and its owner and target columns.
            var sourceJoinTable: (table: String, own: String, other: String)?
            if ownerIsPair {
                // Each pair's row is recorded with its source row and item, in the order of the
                // rows' keys: the links come out in that order.
                let pairs = WorkDatabase.associations(target: mapping.targets[0], alias: "o")
                from = pairs.table
                conditions = [pairs.condition]
                ownerSourceKey = "o.source"
                argumentRow = path.root == .item ? "o.item" : "o.source"
            } else if let name = path.segments.first {
                guard let r = sourceLayout.model.relationship(name, of: mapping.sourceEntity) else {
                    throw NotPushable.readsNoRelationship(what: what, name: name)
                }
                singleValued = !r.isToMany
                switch sourceLayout.storage(ofRelationship: name, entity: mapping.sourceEntity) {
                case .foreignKey(_, let column):
                    argumentRow = owners.column(column)
                case .inverseForeignKey(let table, let column):
                    let p = SQLTable.source(table, alias: "p")
                    joins.append(.cross(p, on: ["\(p.column(column)) = \(ownerKeyColumn)"]))
                    argumentRow = p.column(sourceLayout.table(of: r.destination).keyColumn)
                case .joinTable(let table, let own, let other):
                    // Driven by the join table, in its key order, unindexed.
                    from = .source(table, alias: "p", notIndexed: true)
                    let p = SQLTable.source(table, alias: "p")
                    ownerJoin = .cross(owners, on: ["\(ownerKeyColumn) = \(p.column(own))"])
                    joins.append(ownerJoin!)
                    ownerSourceKey = p.column(own)
                    ownerListed = ownerSourceKey
                    argumentRow = p.column(other)
                    sourceJoinTable = (table, own, other)
                }
            } else {
                argumentRow = ownerKeyColumn
            }

            // The owner's destination keys.
            let ownerKey: String
            switch kind(index) {
            case .sourceKeys:
                ownerKey = ownerSourceKey
            case .unique:
                let owner = try destinationKey(of: index, row: ownerKeyColumn, prefix: "o", sameRowAs: ("a", index))
                joins += owner.joins
                conditions += owner.conditions
                ownerKey = owner.key
            case .forEach:
                ownerKey = "o.destination"
            case .rowByRow:
                // The policy's own rows (not those of the entities it creates besides), as the
                // relate stage reads them.
                joins.append(WorkDatabase.joinAssociations(target: mapping.targets[0], alias: "o", source: ownerSourceKey))
                ownerKey = "o.destination"
            case .nextKeys:
                throw NotPushable.sharesDestinationTable(mapping: mapping.name)
            }
            let ownerJoins = joins, ownerConditions = conditions
            // A join table's two columns, in the order of its primary key: the order links are written in.
            func joinColumns(_ table: String) throws -> [String] {
                guard case .joinTable(_, let own, let other) = storage else { return [] }
                return try primaryKey(table).first == other ? [other, own] : [own, other]
            }
            // - Parameter ownerInRange: the owner's rows are found by a range test of the key the
            //   join table lists (bound as ?3, ?4: the owner's destination keys, when contiguous)
            //   instead of a lookup of each in the source (at random places when the join table
            //   is in the other side's order: 2.0 s against 0.25 s for Author_books at 1M books).
            // - Parameter ownerKeys: only the pairs of the owner rows whose source keys lie in (?1, ?2).
            func statement(inRange: Bool, ownerInRange: Bool = false, ownerKeys: Bool = false) throws -> PushdownPlan.RelateStatement {
                let found = try destinationKey(of: target, row: argumentRow, prefix: "t",
                                               sameRowAs: path.segments.isEmpty && !ownerIsPair ? ("a", index) : nil, inRange: inRange)
                let joins = ownerJoins.filter { !ownerInRange || $0 != ownerJoin } + found.joins
                var unique: [String] = []
                let ownerRange = (ownerInRange ? [Database.keyBetween("+\(ownerListed!)", "?3", "?4")] : []) + (ownerKeys ? ["\(ownerKeyColumn) BETWEEN ?1 AND ?2"] : [])
                for condition in ownerConditions + ownerRange + found.conditions where !unique.contains(condition) { unique.append(condition) }
                let rows = SQLSelect([], from: from, joins: joins, where: unique)
                // A kept source key is the destination key: read it where it is, so the order of
                // the scan is the order of the output.
                let targetKey = kind(target) == .sourceKeys ? argumentRow : found.key

                switch storage {
                case .joinTable(let table, let own, _):
                    let columns = try joinColumns(table)
                    let select = rows.selecting(columns.map { $0 == own ? ownerKey : targetKey })
                    return .pairs(SQLInsert(into: .main(table), columns: columns, select.ordered(by: ["1", "2"]), conflict: .ignore))
                case .foreignKey(let table, let column):
                    guard singleValued else { throw NotPushable.toOneGivenToManyPath(what: what) }
                    // One value per destination row: the first source row's (lowest key) when several made it.
                    let pairs = kind(index) == .unique || kind(index) == .rowByRow
                        ? rows.selecting(["\(ownerKey) AS o", "\(targetKey) AS t", "min(\(ownerKeyColumn))"]).grouped(by: ["1"])
                        : rows.selecting(["\(ownerKey) AS o", "\(targetKey) AS t"])
                    return .keyColumn(Self.firstLinkWins(table, column, key: layout.table(of: mapping.destinationEntity).keyColumn, from: pairs, value: "x.t", row: "x.o"))
                case .inverseForeignKey(let table, let column):
                    // A target row links to the first destination row (lowest key) that names it.
                    let pairs = rows.selecting(["\(targetKey) AS t", "min(\(ownerKey)) AS o"]).grouped(by: ["1"])
                    return .keyColumn(Self.firstLinkWins(table, column, key: layout.table(of: relationship.destination).keyColumn, from: pairs, value: "x.o", row: "x.t"))
                }
            }
            var dense: PushdownPlan.DenseTarget?
            // Contiguous keys say a row exists, not whose it is: not for a shared table.
            if kind(target) == .sourceKeys, layout.table(of: step.mappings[target].destinationEntity).discriminator == nil {
                let table = layout.table(of: step.mappings[target].destinationEntity)
                dense = .init(table: table.name, key: table.keyColumn, statement: try statement(inRange: true))
            }
            // The owner's rows, when they keep their source keys, every source row of the table
            // made one (no filter, no entity told apart) and nothing else writes their table: a
            // listed key has its owner exactly when a row of that key was made.
            var denseOwner: PushdownPlan.DenseOwner?
            let ownerDestination = layout.table(of: mapping.destinationEntity)
            if ownerJoin != nil, kind(index) == .sourceKeys, case .joinTable = storage, try passing(index, alias: "a").isEmpty,
               ownerDestination.discriminator == nil, step.writersByTable[ownerDestination.name] == 1 {
                denseOwner = .init(table: ownerDestination.name, key: ownerDestination.keyColumn,
                                   statement: try statement(inRange: false, ownerInRange: true),
                                   both: dense == nil ? nil : try statement(inRange: true, ownerInRange: true))
            }
            let written = try statement(inRange: false)
            // Links between rows found by source key or uniqueBy key alone read no row the
            // step makes: they can be worked out ahead, on a second connection.
            var ahead: PushdownPlan.AheadLinks?
            if case .pairs(let insert) = written, !ownerIsPair, dense == nil, denseOwner == nil,
               kind(target) == .unique, kind(index) == .sourceKeys || kind(index) == .unique {
                // Read in the owner table's key order: its pairs can be worked out a key range at a time.
                var ranges: PushdownPlan.AheadLinks.Ranges?
                if ownerJoin == nil, case .pairs(let keyed) = try statement(inRange: false, ownerKeys: true) {
                    ranges = .init(table: ownerTable.name, key: ownerTable.keyColumn, pairs: keyed.select.ordered(by: []))
                }
                ahead = .init(statement: insert, keysOf: kind(index) == .unique ? [index, target] : [target], ranges: ranges)
            }
            // Pairs copied as the source lists them, found by a range test on both sides: the
            // source table itself, when every pair passes the tests.
            var verbatim: VerbatimLinks?
            if case .joinTable(let table, let own, let other) = storage, let source = sourceJoinTable, denseOwner?.both != nil {
                verbatim = VerbatimLinks(table: table, sourceTable: source.table, ownColumn: own, otherColumn: other,
                                         sourceOwnColumn: source.own, sourceOtherColumn: source.other)
            }
            result.append(.init(relationship: relationship.name, statement: written, dense: dense, denseOwner: denseOwner,
                                ahead: ahead, verbatim: verbatim))
        }
        return result
    }

    /// `UPDATE main.table SET column = value FROM (pairs) AS x WHERE table.key = row AND
    /// column IS NULL`: each row's key column set from the pairs, where no earlier
    /// statement set it (the relate stage's first-link-wins rule).
    private static func firstLinkWins(_ table: String, _ column: String, key: String, from pairs: SQLSelect, value: String, row: String) -> SQLUpdate {
        let written = SQLTable.main(table)
        return SQLUpdate(written, set: [(column: column, value: value)], from: .select(pairs, alias: "x"),
                         where: ["\(written.column(key)) = \(row)", "\(written.column(column)) IS NULL"])
    }
}
