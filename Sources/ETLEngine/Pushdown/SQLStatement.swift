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
struct SQLTable: Equatable {
    /// `main` (the step's store), `src` (its input), `work` (the work database), `ahead`…
    var schema: String
    var name: String
    var alias: String?

    static func main(_ name: String, alias: String? = nil) -> SQLTable { SQLTable(schema: "main", name: name, alias: alias) }
    static func source(_ name: String, alias: String? = nil) -> SQLTable { SQLTable(schema: "src", name: name, alias: alias) }

    /// `src."ZBOOK" s`.
    var sql: String { "\(schema).\(Database.quote(name))" + (alias.map { " \($0)" } ?? "") }

    /// A column of the table, as a statement over it names it: `s."ZTITLE"` (by alias), else `main."ZBOOK"."ZTITLE"`.
    func column(_ name: String) -> String {
        (alias ?? "\(schema).\(Database.quote(self.name))") + "." + Database.quote(name)
    }
}

/// `SELECT … FROM … [joins] [WHERE … AND …] [ORDER BY …] [LIMIT … [OFFSET …]]`.
struct SQLSelect: Equatable {
    var columns: [String]
    var from: SQLTable
    /// Joins as written after the table (`JOIN src."Z_1BOOKS" j ON …`).
    var joins: [String] = []
    /// Conditions, joined by AND; none: every row.
    var conditions: [String] = []
    var orderBy: [String] = []
    var limit: String?
    var offset: String?
    var distinct = false

    init(_ columns: [String], from: SQLTable, joins: [String] = [], where conditions: [String] = [], orderBy: [String] = [],
         limit: String? = nil, offset: String? = nil, distinct: Bool = false) {
        self.columns = columns
        self.from = from
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

    /// `SELECT count(*)` of the same rows (no order, no limit).
    var count: SQLSelect {
        SQLSelect(["count(*)"], from: from, joins: joins, where: conditions)
    }

    var sql: String {
        var text = "SELECT " + (distinct ? "DISTINCT " : "") + columns.joined(separator: ", ") + " FROM " + from.sql
        for join in joins { text += " " + join }
        if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
        if !orderBy.isEmpty { text += " ORDER BY " + orderBy.joined(separator: ", ") }
        if let limit { text += " LIMIT " + limit }
        if let offset { text += " OFFSET " + offset }
        return text
    }
}

/// `INSERT [OR IGNORE] INTO table (columns) SELECT …`.
struct SQLInsert: Equatable {
    enum Conflict: Equatable { case fail, ignore }

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
    var head: String {
        "INSERT " + (conflict == .ignore ? "OR IGNORE " : "") + "INTO " + table.sql + " ("
            + columns.map(Database.quote).joined(separator: ", ") + ") "
    }

    var sql: String { head + select.sql }
}

/// `UPDATE table SET column = value, … [FROM other] [WHERE …]` (SQLite 3.33's UPDATE … FROM).
struct SQLUpdate: Equatable {
    var table: SQLTable
    var assignments: [(column: String, value: String)]
    var from: SQLTable?
    var conditions: [String]

    init(_ table: SQLTable, set assignments: [(column: String, value: String)], from: SQLTable? = nil, where conditions: [String] = []) {
        self.table = table
        self.assignments = assignments
        self.from = from
        self.conditions = conditions
    }

    static func == (a: SQLUpdate, b: SQLUpdate) -> Bool { a.sql == b.sql }

    var sql: String {
        var text = "UPDATE " + table.sql + " SET " + assignments.map { "\(Database.quote($0.column)) = \($0.value)" }.joined(separator: ", ")
        if let from { text += " FROM " + from.sql }
        if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
        return text
    }
}
