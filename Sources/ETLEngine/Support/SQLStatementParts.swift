import ETLStore

/// The push-down's statements, built from parts instead of glued from strings: a table with
/// its alias, a select, an insert of a select, an update from another table. Each part renders
/// its own text (`sql`), the way GRDB's query interface renders an `SQLRelation`, so a
/// statement can be tested on its own text and its pieces reused (the same rows counted,
/// inserted and bounded).
///
///     let books = SQLTable.source("ZBOOK", alias: "s")
///     let select = SQLSelect(["s.\"Z_PK\"", "s.\"ZTITLE\""], from: books, where: ["s.\"Z_PK\" >= ?1"])
///     SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK", "ZTITLE"], select).sql
///     // INSERT INTO main."ZBOOK" ("Z_PK", "ZTITLE") SELECT s."Z_PK", s."ZTITLE" FROM src."ZBOOK" s WHERE s."Z_PK" >= ?1
///
/// Values and conditions are SQL expressions already (from `SQLTranslator`); names are quoted here.
struct SQLTable: Hashable, Sendable {
    /// `main` (the step's store), `src` (its input), `work` (the work database), `ahead`…
    var schema: String
    var name: String
    var alias: String?
    /// Read in its own (rowid) order, never through an index (`NOT INDEXED`).
    var notIndexed = false

    init(schema: String, name: String, alias: String? = nil, notIndexed: Bool = false) {
        self.schema = schema
        self.name = name
        self.alias = alias
        self.notIndexed = notIndexed
    }

    static func main(_ name: String, alias: String? = nil) -> SQLTable { SQLTable(schema: "main", name: name, alias: alias) }
    static func source(_ name: String, alias: String? = nil, notIndexed: Bool = false) -> SQLTable {
        SQLTable(schema: "src", name: name, alias: alias, notIndexed: notIndexed)
    }
    static func work(_ name: String, alias: String? = nil) -> SQLTable { SQLTable(schema: "work", name: name, alias: alias) }

    /// `src."ZBOOK" s`. (The work database's tables are named as they were created, unquoted.)
    var sql: String {
        (schema == "work" ? "work.\(name)" : "\(schema).\(Database.quote(name))") + (alias.map { " \($0)" } ?? "")
            + (notIndexed ? " NOT INDEXED" : "")
    }

    /// A column of the table, as a statement over it names it: `s."ZTITLE"` (by alias), else `main."ZBOOK"."ZTITLE"`.
    func column(_ name: String) -> String {
        (alias ?? "\(schema).\(Database.quote(self.name))") + "." + Database.quote(name)
    }
}

/// `CROSS JOIN table ON …` (CROSS: SQLite keeps the order of the tables as written, so the
/// rows come out in the order of the first) or `LEFT JOIN table ON …` (a missing row reads
/// as nulls).
struct SQLJoin: Hashable, Sendable {
    enum Kind: String, Hashable, Sendable { case cross = "CROSS JOIN", inner = "JOIN", left = "LEFT JOIN" }

    var kind: Kind
    var table: SQLTable
    var on: [String]

    static func cross(_ table: SQLTable, on: [String]) -> SQLJoin { SQLJoin(kind: .cross, table: table, on: on) }
    static func left(_ table: SQLTable, on: [String]) -> SQLJoin { SQLJoin(kind: .left, table: table, on: on) }
    /// An inner join SQLite may reorder.
    static func inner(_ table: SQLTable, on: [String]) -> SQLJoin { SQLJoin(kind: .inner, table: table, on: on) }

    var sql: String { kind.rawValue + " " + table.sql + " ON " + on.joined(separator: " AND ") }
}

/// What a select reads: a table, or the rows of another select (`(SELECT …) AS x`).
indirect enum SQLSource: Hashable, Sendable {
    case table(SQLTable)
    case select(SQLSelect, alias: String?)

    var sql: String {
        switch self {
        case .table(let table): return table.sql
        case .select(let select, let alias): return "(" + select.sql + ")" + (alias.map { " AS \($0)" } ?? "")
        }
    }
}

/// `SELECT … FROM … [joins] [WHERE … AND …] [GROUP BY …] [ORDER BY …] [LIMIT … [OFFSET …]]`.
struct SQLSelect: Hashable, Sendable {
    var columns: [String]
    var from: SQLSource
    /// Joins, in order after the table.
    var joins: [SQLJoin] = []
    /// Conditions, joined by AND; none: every row.
    var conditions: [String] = []
    var groupBy: [String] = []
    var orderBy: [String] = []
    var limit: String?
    var offset: String?
    var distinct = false

    init(_ columns: [String], from: SQLTable, joins: [SQLJoin] = [], where conditions: [String] = [], groupBy: [String] = [],
         orderBy: [String] = [], limit: String? = nil, offset: String? = nil, distinct: Bool = false) {
        self.init(columns, from: .table(from), joins: joins, where: conditions, groupBy: groupBy, orderBy: orderBy, limit: limit,
                  offset: offset, distinct: distinct)
    }

    init(_ columns: [String], from: SQLSource, joins: [SQLJoin] = [], where conditions: [String] = [], groupBy: [String] = [],
         orderBy: [String] = [], limit: String? = nil, offset: String? = nil, distinct: Bool = false) {
        self.columns = columns
        self.from = from
        self.groupBy = groupBy
        self.joins = joins
        self.conditions = conditions
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
        self.distinct = distinct
    }

    /// The same rows, with more conditions.
    func filtered(_ more: [String]) -> SQLSelect {
        var select = self
        select.conditions += more
        return select
    }

    /// The same rows, with other columns.
    func selecting(_ columns: [String]) -> SQLSelect {
        var select = self
        select.columns = columns
        return select
    }

    /// The first `count` rows.
    func limited(_ count: String) -> SQLSelect {
        var select = self
        select.limit = count
        return select
    }

    /// The same rows, grouped.
    func grouped(by groupBy: [String]) -> SQLSelect {
        var select = self
        select.groupBy = groupBy
        return select
    }

    /// The same rows, in this order.
    func ordered(by orderBy: [String]) -> SQLSelect {
        var select = self
        select.orderBy = orderBy
        return select
    }

    /// `SELECT count(*)` of the same rows (no order, no limit).
    var count: SQLSelect {
        SQLSelect(["count(*)"], from: from, joins: joins, where: conditions)
    }

    var sql: String {
        var text = "SELECT " + (distinct ? "DISTINCT " : "") + columns.joined(separator: ", ") + " FROM " + from.sql
        for join in joins { text += " " + join.sql }
        if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
        if !groupBy.isEmpty { text += " GROUP BY " + groupBy.joined(separator: ", ") }
        if !orderBy.isEmpty { text += " ORDER BY " + orderBy.joined(separator: ", ") }
        if let limit { text += " LIMIT " + limit }
        if let offset { text += " OFFSET " + offset }
        return text
    }
}

/// `INSERT [OR IGNORE] INTO table (columns) SELECT …`.
struct SQLInsert: Hashable, Sendable {
    enum Conflict: Hashable, Sendable { case fail, ignore }

    var table: SQLTable
    var columns: [String]
    var select: SQLSelect
    var conflict = Conflict.fail

    init(into table: SQLTable, columns: [String], _ select: SQLSelect, conflict: Conflict = .fail) {
        self.table = table
        self.columns = columns
        self.select = select
        self.conflict = conflict
    }

    /// The statement up to its select: `INSERT INTO main."ZBOOK" ("Z_PK", "ZTITLE") `.
    var head: String { Self.head(into: table, columns: columns, conflict: conflict) }

    static func head(into table: SQLTable, columns: [String], conflict: Conflict) -> String {
        "INSERT " + (conflict == .ignore ? "OR IGNORE " : "") + "INTO " + table.sql + " ("
            + columns.map(Database.quote).joined(separator: ", ") + ") "
    }

    var sql: String { head + select.sql }
}

/// `UPDATE table SET column = value, … [FROM other] [WHERE …]` (SQLite 3.33's UPDATE … FROM).
struct SQLUpdate: Hashable, Sendable {
    var table: SQLTable
    var assignments: [(column: String, value: String)]
    var from: SQLSource?
    var conditions: [String]

    init(_ table: SQLTable, set assignments: [(column: String, value: String)], from: SQLSource? = nil, where conditions: [String] = []) {
        self.table = table
        self.assignments = assignments
        self.from = from
        self.conditions = conditions
    }

    // (Tuples are neither Equatable nor Hashable: compared and hashed a field at a time.)
    static func == (a: SQLUpdate, b: SQLUpdate) -> Bool {
        a.table == b.table && a.assignments.map(\.column) == b.assignments.map(\.column)
            && a.assignments.map(\.value) == b.assignments.map(\.value) && a.from == b.from && a.conditions == b.conditions
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(table)
        for assignment in assignments {
            hasher.combine(assignment.column)
            hasher.combine(assignment.value)
        }
        hasher.combine(from)
        hasher.combine(conditions)
    }

    var sql: String {
        var text = "UPDATE " + table.sql + " SET " + assignments.map { "\(Database.quote($0.column)) = \($0.value)" }.joined(separator: ", ")
        if let from { text += " FROM " + from.sql }
        if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
        return text
    }
}
