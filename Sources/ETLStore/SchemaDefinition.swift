import CSQLite

/// A schema object's definition taken from a store etl did not write (`sqlite_schema.sql`),
/// checked before it is made anywhere: SQLite keeps only the first statement's meaning of
/// that text, but the text may carry more (`…; DELETE FROM ZCAR`, `COMMIT; VACUUM INTO …`,
/// `ATTACH …`), which `sqlite3_exec` would run. So the text is never run as text: it is
/// prepared (never stepped) to learn, from SQLite's own parser through the authorizer, what
/// the first statement makes; the rest must be nothing but spaces and comments; and the
/// statement must make one object of the expected kind and name, in `main`. Only then is
/// that one statement, cut off where SQLite said it ends, prepared again and stepped.
///
/// A trigger's body may hold statements that run later (DELETE, INSERT, UPDATE, SELECT):
/// that is what a trigger means. SQLite's grammar allows nothing else there (no ATTACH,
/// PRAGMA, VACUUM, DETACH or transaction control), so the body needs no check of its own.
public struct SchemaDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case table, index, trigger, view, virtualTable

        var word: String { self == .virtualTable ? "virtual table" : rawValue }
    }

    /// Why a definition is not made.
    public struct Refused: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public let kind: Kind
    /// The object's name, as the statement names it.
    public let name: String
    /// The table an index or trigger is on (a trigger's may be a view); a table's or view's own name.
    public let table: String
    /// A virtual table's module (`fts5`, `rtree`, …).
    public let module: String?
    /// The one statement, without what followed it.
    public let statement: String

    /// The modules of virtual tables etl makes: full-text search and R*Trees. Others (such
    /// as `sqlite_dbpage`, which writes pages) are refused by name.
    public static let virtualTableModules: Set<String> = ["fts3", "fts4", "fts5", "rtree", "rtree_i32", "geopoly"]

    /// Checks `sql` as the definition of `kind` named `name` (case-insensitively), by
    /// preparing it on `database` (nothing is stepped, so nothing is made or changed).
    /// - Throws: `Refused` saying what is wrong with it.
    public static func check(_ sql: String, kind: Kind, name: String, on database: Database) throws -> SchemaDefinition {
        let recorder = AuthorizerLog()
        let box = Unmanaged.passRetained(recorder)
        defer { box.release() }
        sqlite3_set_authorizer(database.handle, { data, code, first, second, schema, _ in
            guard let data else { return SQLITE_OK }
            let log = Unmanaged<AuthorizerLog>.fromOpaque(data).takeUnretainedValue()
            log.actions.append(.init(code: code, first: first.map { String(cString: $0) }, second: second.map { String(cString: $0) },
                                     schema: schema.map { String(cString: $0) }))
            return SQLITE_OK
        }, box.toOpaque())
        defer { sqlite3_set_authorizer(database.handle, nil, nil) }

        let (first, rest) = try split(sql, on: database)
        guard let first else { throw Refused(description: "holds no statement") }
        if let rest { throw Refused(description: "holds more than one statement (after its definition: \(quoted(rest)))") }
        let actions = recorder.actions
        let forbidden: [Int32: String] = [SQLITE_ATTACH: "ATTACH", SQLITE_DETACH: "DETACH", SQLITE_PRAGMA: "PRAGMA",
                                          SQLITE_CREATE_TEMP_TABLE: "a temporary table", SQLITE_CREATE_TEMP_INDEX: "a temporary index",
                                          SQLITE_CREATE_TEMP_TRIGGER: "a temporary trigger", SQLITE_CREATE_TEMP_VIEW: "a temporary view",
                                          SQLITE_TRANSACTION: "transaction control", SQLITE_SAVEPOINT: "a savepoint",
                                          SQLITE_DROP_TABLE: "DROP", SQLITE_DROP_INDEX: "DROP", SQLITE_DROP_TRIGGER: "DROP",
                                          SQLITE_DROP_VIEW: "DROP", SQLITE_DROP_VTABLE: "DROP", SQLITE_ALTER_TABLE: "ALTER TABLE"]
        if let bad = actions.first(where: { forbidden[$0.code] != nil }) {
            throw Refused(description: "is no plain definition: it does \(forbidden[bad.code]!)")
        }
        let creates: [Int32: Kind] = [SQLITE_CREATE_TABLE: .table, SQLITE_CREATE_INDEX: .index, SQLITE_CREATE_TRIGGER: .trigger,
                                      SQLITE_CREATE_VIEW: .view, SQLITE_CREATE_VTABLE: .virtualTable]
        // A table's PRIMARY KEY or UNIQUE constraints make SQLite's own indexes with it.
        let made = actions.filter { creates[$0.code] != nil && !($0.code == SQLITE_CREATE_INDEX && $0.first?.hasPrefix("sqlite_autoindex_") == true) }
        guard made.count == 1, let create = made.first, let madeKind = creates[create.code], let madeName = create.first else {
            throw Refused(description: "is no CREATE \(kind.word.uppercased()) statement")
        }
        guard madeKind == kind else { throw Refused(description: "makes a \(madeKind.word), not a \(kind.word)") }
        guard madeName.caseInsensitiveCompare(name) == .orderedSame else {
            throw Refused(description: "makes \(madeKind.word) \(quoted(madeName)), not \(quoted(name))")
        }
        if let schema = create.schema, schema != "main" {
            throw Refused(description: "makes its \(kind.word) in database \(quoted(schema)), not in the store itself")
        }
        // Where rows come from: a table from a SELECT (CREATE TABLE … AS SELECT) is no definition.
        // An index (and a table's own indexes) read their own table to fill themselves, and nothing else.
        let own = (kind == .index ? create.second : madeName)?.lowercased()
        if kind == .table || kind == .index || kind == .virtualTable, let read = actions.first(where: {
            $0.code == SQLITE_SELECT || ($0.code == SQLITE_READ && !isSchemaTable($0.first) && $0.first?.lowercased() != own)
        }) {
            throw Refused(description: "reads \(read.first.map(quoted) ?? "rows") to make its \(kind.word)")
        }
        // Writes only the schema table (the record of the object made); a trigger's body
        // writes later, when it fires, which is its meaning.
        if kind != .trigger, let write = actions.first(where: {
            [SQLITE_INSERT, SQLITE_DELETE, SQLITE_UPDATE].contains($0.code) && !isSchemaTable($0.first)
        }) {
            throw Refused(description: "writes into \(write.first.map(quoted) ?? "a table")")
        }
        let module = kind == .virtualTable ? create.second : nil
        if let module, !virtualTableModules.contains(module.lowercased()) {
            throw Refused(description: "is a virtual table of module \(quoted(module)), which etl does not make "
                + "(it makes \(virtualTableModules.sorted().joined(separator: ", ")))")
        }
        let table = kind == .index || kind == .trigger ? create.second ?? name : madeName
        return SchemaDefinition(kind: kind, name: madeName, table: table, module: module, statement: first)
    }

    /// Makes the object: its one statement, prepared and stepped on `database`.
    public func create(in database: Database) throws {
        let statement = try database.prepare(statement)
        _ = try statement.step()
    }

    private static func isSchemaTable(_ name: String?) -> Bool {
        guard let name = name?.lowercased() else { return false }
        return ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"].contains(name)
    }

    /// A name or text as a message shows it: between double quotes, at most 80 characters,
    /// control characters escaped.
    public static func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(80) {
            if scalar.value < 0x20 || scalar.value == 0x7f || (0x202a...0x202e).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return "\"\(shown)\(text.unicodeScalars.count > 80 ? "…" : "")\""
    }

    /// The first statement of `sql` as SQLite parses it, and what follows it when that is
    /// more than spaces and comments (nil otherwise). Prepared only, never stepped.
    private static func split(_ sql: String, on database: Database) throws -> (first: String?, rest: String?) {
        let bytes = Array(sql.utf8)
        guard !bytes.contains(0) else { throw Refused(description: "holds a NUL character") }
        return try bytes.withUnsafeBufferPointer { buffer -> (String?, String?) in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            func prepare(from start: Int) throws -> (found: Bool, end: Int) {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(database.handle, base + start, Int32(bytes.count - start), &stmt, &tail)
                defer { sqlite3_finalize(stmt) }
                guard rc == SQLITE_OK else {
                    throw Refused(description: "is not SQL SQLite \(Database.sqliteVersion) can make here: \(String(cString: sqlite3_errmsg(database.handle)))")
                }
                let end = tail.map { $0 - base } ?? bytes.count
                return (stmt != nil, max(end, start))
            }
            var (found, end) = try prepare(from: 0)
            // Comments and spaces before the statement: prepare skips them, and the statement starts after.
            var start = 0
            while !found, end < bytes.count, end > start {
                start = end
                (found, end) = try prepare(from: start)
            }
            guard found else { return (nil, nil) }
            let first = String(decoding: bytes[start..<end], as: UTF8.self)
            var at = end
            while at < bytes.count {
                let (more, next) = try prepare(from: at)
                if more || next == at {
                    return (first, String(decoding: bytes[at...], as: UTF8.self))
                }
                at = next
            }
            return (first, nil)
        }
    }
}

/// What SQLite's authorizer was asked while a statement was prepared.
private final class AuthorizerLog {
    struct Action {
        let code: Int32
        let first: String?
        let second: String?
        let schema: String?
    }
    var actions: [Action] = []
}
