import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// The work database of a step (`DESTINATION.etl-work`): the only code that names its
/// tables. The stages ask it in the domain's words; the push-down gets SQL fragments from
/// it to join the tables into its INSERT … SELECT statements.
///
/// - `association`: source row (and forEach item) → destination row, per mapping: Core
///   Data's associateSourceInstance. On disk, so memory never grows with the store.
/// - `unique_key`: uniqueBy key → the destination row made for it, the first source row
///   with that key (whose values the row has) and, pushed down, how many rows have it.
/// - `reject`: rejected source rows (JSON records), committed with their chunk.
///
/// The destination's connection attaches the file as schema `work`; the relate stage's
/// readers open the file on its own (SQLite names it `main` there).
///
/// The tables' `mapping` columns hold a `TargetID`'s number (associations, uniqueBy keys:
/// a scope is a target) or a `MappingID`'s (rejects): the ids become numbers here only.
struct WorkDatabase {
    let database: Database
    /// How the tables are named on this connection: `work.` attached, nothing on its own.
    private let schema: String

    /// The work database attached to the destination's connection as `work`.
    init(attachedTo destination: Database) {
        database = destination
        schema = "work."
    }

    /// The work file opened on a connection of its own.
    init(file: Database) {
        database = file
        schema = ""
    }

    /// Creates the tables, in the destination connection's attached schema `work`.
    static let creation = """
        CREATE TABLE work.association (
            mapping INTEGER NOT NULL, destination INTEGER NOT NULL,
            source INTEGER NOT NULL, item INTEGER NOT NULL,
            PRIMARY KEY (mapping, destination, source, item)) WITHOUT ROWID;
        CREATE INDEX work.association_by_source ON association (mapping, source, destination);
        CREATE TABLE work.unique_key (
            mapping INTEGER NOT NULL, key BLOB NOT NULL, destination INTEGER NOT NULL, source INTEGER NOT NULL,
            rows INTEGER, PRIMARY KEY (mapping, key)) WITHOUT ROWID;
        CREATE TABLE work.reject (
            mapping INTEGER NOT NULL, source INTEGER NOT NULL, record TEXT NOT NULL);
        """

    /// `item` of an association without a forEach. A real item may have this key too: an
    /// association has an item exactly when its mapping has a forEach, never by its value.
    static let noItem = Int64.min

    /// The `mapping` of the associations of target `target`'s rows that an end-of-mapping
    /// hook made. They have no source row, and every source key is a key a store may hold
    /// (2⁶³−1 too), so they are told apart by mapping, not by a sentinel source key: no
    /// relate, lookup or rollback by source key ever meets them.
    static func endOfMappingAssociations(of target: TargetID) -> Int64 { -1 - Int64(target.index) }

    /// The targets' ids in `association`.
    private static func ids(_ targets: [TargetID]) -> String {
        targets.map { "\($0.index)" }.joined(separator: ", ")
    }

    /// The targets' ids in `association`: their rows' own and those their end-of-mapping hooks made.
    private static func madeBy(_ targets: [TargetID]) -> String {
        targets.flatMap { ["\($0.index)", "\(endOfMappingAssociations(of: $0))"] }.joined(separator: ", ")
    }

    // MARK: Associations

    /// Records that target `target` made a destination row: bound to (destination, source, item).
    func prepareAssociate(target: TargetID) throws -> Statement {
        try database.prepare("INSERT INTO \(schema)association (mapping, destination, source, item) VALUES (\(target.index), ?, ?, ?)")
    }

    /// Records a row target `target`'s end-of-mapping hook made: bound to (destination, source, item).
    func prepareAssociateEndOfMapping(target: TargetID) throws -> Statement {
        try database.prepare("INSERT INTO \(schema)association (mapping, destination, source, item) VALUES ("
                             + "\(Self.endOfMappingAssociations(of: target)), ?, ?, ?)")
    }

    /// Records the associations of target `target`'s rows that kept their source keys, in
    /// `table`, from a range of keys (bound to first, last): each row is associated with the
    /// source row of its own key. Only the target's rows have those keys there: other
    /// entities sharing the table are told apart by `Z_ENT`, new rows are keyed above every
    /// kept key (`StepPlan.firstNewKeys`).
    func prepareAssociateKeptRows(target: TargetID, of table: EntityTable) throws -> Statement {
        let rows = SQLTable.main(table.name, alias: "d")
        let key = rows.column(table.keyColumn)
        let kept = SQLSelect([], from: rows, where: ["\(key) BETWEEN ? AND ?"] + [table.condition(alias: "d")].compactMap { $0 })
        return try database.prepare(Self.associate(target: target, destination: key, source: key, item: "\(Self.noItem)", of: kept).sql)
    }

    /// The destination rows a source row became, for destinations(): bound to (target's number, source).
    func prepareDestinations() throws -> Statement {
        try database.prepare("SELECT destination FROM \(schema)association WHERE mapping = ? AND source = ? ORDER BY destination")
    }

    /// Target `target`'s associations from source rows in (destination, source, item) order,
    /// after (`inclusive`: from) the one bound, at most as many as bound last.
    func prepareAssociationScan(target: TargetID, inclusive: Bool) throws -> Statement {
        try database.prepare("""
            SELECT destination, source, item FROM \(schema)association
            WHERE mapping = \(target.index) AND (destination, source, item) \(inclusive ? ">=" : ">") (?, ?, ?)
            ORDER BY destination, source, item LIMIT ?
            """)
    }

    /// How many associations from source rows the targets have.
    func associationCount(targets: [TargetID]) throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM \(schema)association WHERE mapping IN (\(Self.ids(targets)))"))
    }

    /// How many associations target `target` has, its end-of-mapping hook's included.
    func associationCount(madeBy target: TargetID) throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM \(schema)association WHERE mapping IN (\(Self.madeBy([target])))"))
    }

    /// How many destination rows the targets' associations point at.
    func destinationCount(madeBy targets: [TargetID]) throws -> Int {
        Int(try database.scalarInt("SELECT count(DISTINCT destination) FROM \(schema)association WHERE mapping IN (\(Self.madeBy(targets)))"))
    }

    /// Target `target`'s associations, and whether each destination key is its source key.
    func associationsKeepingSourceKeys(target: TargetID) throws -> (associations: Int64, keepingKeys: Bool)? {
        let row = try database.rows("SELECT count(*), total(destination IS NOT source) FROM \(schema)association WHERE mapping = \(target.index)")[0]
        guard case .integer(let made) = row[0], case .real(let moved) = row[1] else { return nil }
        return (made, moved == 0)
    }

    // MARK: Unique keys

    /// The destination row made for a uniqueBy key in scope `scope`: bound to (key).
    func prepareFindUniqueKey(scope: TargetID) throws -> Statement {
        try database.prepare("SELECT destination FROM \(schema)unique_key WHERE mapping = \(scope.index) AND key = ?")
    }

    /// Records the row made for a uniqueBy key in scope `scope`: bound to (key, destination, source).
    func prepareAddUniqueKey(scope: TargetID) throws -> Statement {
        try database.prepare("INSERT INTO \(schema)unique_key (mapping, key, destination, source) VALUES (\(scope.index), ?, ?, ?)")
    }

    // MARK: Rejects

    /// Stores a reject record of mapping `mapping`: bound to (source, record).
    func prepareReject(mapping: MappingID) throws -> Statement {
        try database.prepare("INSERT INTO \(schema)reject (mapping, source, record) VALUES (\(mapping.index), ?, ?)")
    }

    /// The `mapping` under which the rejects of source links that name no row are kept
    /// (`DanglingLinks`): each try of a step makes them again whole, before a row is read, so
    /// they are apart from every mapping's own, which a rollback removes by mapping and key.
    static let danglingLinkRejects: Int64 = -1

    /// Stores a reject record of a link that names no row: bound to (source, record).
    func prepareDanglingLinkReject() throws -> Statement {
        try database.prepare("INSERT INTO \(schema)reject (mapping, source, record) VALUES (\(Self.danglingLinkRejects), ?, ?)")
    }

    /// Forgets the rejects of links that name no row (before they are made again).
    func forgetDanglingLinkRejects() throws {
        try database.execute("DELETE FROM \(schema)reject WHERE mapping = \(Self.danglingLinkRejects)")
    }

    /// Rejected source rows per mapping index, of the mappings that rejected any.
    func rejectCounts() throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for row in try database.rows("SELECT mapping, count(*) FROM \(schema)reject GROUP BY mapping") {
            if case .integer(let mapping) = row[0], case .integer(let n) = row[1] { counts[Int(mapping)] = Int(n) }
        }
        return counts
    }

    /// The step's reject records (JSON), in the order they were rejected; the first `limit`.
    func rejectRecords(limit: Int? = nil) throws -> [String] {
        try database.rows("SELECT record FROM \(schema)reject ORDER BY rowid" + (limit.map { " LIMIT \($0)" } ?? "")).compactMap {
            if case .text(let json) = $0[0] { return json } else { return nil }
        }
    }

    // MARK: Rollback

    /// Undoes in the work tables what came after a checkpoint in mapping `mapping` whose last
    /// source key loaded is `lastKey` (nil: none yet): the associations of `current` targets
    /// past it and all of `later` targets', the rejects past it and all of `laterMappings`'.
    /// Returns how many source rows had associations undone. Call inside the rollback's
    /// transaction.
    func undo(mapping: MappingID, current: [TargetID], later: [TargetID], laterMappings: [MappingID], after lastKey: Int64?) throws -> Int {
        let afterLast = lastKey.map { "source > \($0)" } ?? "1"
        let currentIds = Self.ids(current)
        let laterIds = (later.map { Int64($0.index) } + (current + later).map(Self.endOfMappingAssociations(of:)))
            .map(String.init).joined(separator: ",")
        let undone = Int(try database.scalarInt("SELECT count(DISTINCT source) FROM \(schema)association WHERE mapping IN (\(currentIds)) AND \(afterLast)"))
        try database.execute("DELETE FROM \(schema)association WHERE (mapping IN (\(currentIds)) AND \(afterLast)) OR mapping IN (\(laterIds))")
        let laterMappingIds = laterMappings.map { String($0.index) }.joined(separator: ",")
        try database.execute("DELETE FROM \(schema)reject WHERE mapping IN (\(laterMappingIds)) OR (mapping = \(mapping.index) AND \(afterLast))")
        return undone
    }

    /// Forgets the uniqueBy keys of scope `scope` whose rows have keys from `firstUndone` on.
    func undoUniqueKeys(scope: TargetID, from firstUndone: Int64) throws {
        try database.run("DELETE FROM \(schema)unique_key WHERE mapping = ? AND destination >= ?",
                         [.integer(Int64(scope.index)), .integer(firstUndone)])
    }

    // MARK: SQL for the push-down (the destination's connection, `work` attached)

    /// A query of how many source rows have the keys of scope `scope` whose rows are keyed from `from` on.
    static func rowsWithUniqueKeys(scope: TargetID, from: String) -> SQLSelect {
        SQLSelect(["coalesce(sum(rows), 0)"], from: .work("unique_key"), where: ["mapping = \(scope.index)", "destination >= \(from)"])
    }

    /// An INSERT … SELECT of target `target`'s associations, one per row of `rows` (its columns are set here).
    static func associate(target: TargetID, destination: String, source: String, item: String, of rows: SQLSelect) -> SQLInsert {
        SQLInsert(into: .work("association"), columns: ["mapping", "destination", "source", "item"],
                  rows.selecting(["\(target.index)", destination, source, item]))
    }

    /// An INSERT … SELECT of scope `scope`'s uniqueBy keys, one per row of `rows` (its columns are set here).
    static func addUniqueKeys(scope: TargetID, key: String, destination: String, source: String, rows count: String,
                              of rows: SQLSelect) -> SQLInsert {
        SQLInsert(into: .work("unique_key"), columns: ["mapping", "key", "destination", "source", "rows"],
                  rows.selecting(["\(scope.index)", key, destination, source, count]))
    }

    /// The keys of scope `scope` as table `alias` (columns key, destination, source), for a FROM
    /// clause, with the condition that keeps the scope's rows keyed from `from` on.
    static func uniqueKeys(scope: TargetID, alias: String, from: String) -> (table: SQLTable, conditions: [String]) {
        (.work("unique_key", alias: alias), ["\(alias).mapping = \(scope.index)", "\(alias).destination >= \(from)"])
    }

    /// Joins the row made for uniqueBy key `key` in scope `scope` as `alias` (column destination).
    static func joinUniqueKey(scope: TargetID, alias: String, key: String) -> SQLJoin {
        .cross(.work("unique_key", alias: alias), on: ["\(alias).mapping = \(scope.index)", "\(alias).key = \(key)"])
    }

    /// Target `target`'s associations as table `alias` (columns destination, source, item),
    /// for a FROM clause, with the condition that keeps the target's.
    static func associations(target: TargetID, alias: String) -> (table: SQLTable, condition: String) {
        (.work("association", alias: alias), "\(alias).mapping = \(target.index)")
    }

    /// Joins the rows target `target` made of source row `source` as `alias` (column destination).
    static func joinAssociations(target: TargetID, alias: String, source: String) -> SQLJoin {
        .cross(.work("association", alias: alias), on: ["\(alias).mapping = \(target.index)", "\(alias).source = \(source)"])
    }
}
