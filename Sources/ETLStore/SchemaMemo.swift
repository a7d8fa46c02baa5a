import CSQLite
import Foundation

/// The answers of `Database.tables()`, `table(named:)`, `objectType(named:)` and
/// `rowIDColumn(ofTable:)`, kept by the text the main database's schema is stored as.
///
/// Each answer depends on the schema alone, and SQLite makes one schema of one stored
/// text: the same `sqlite_schema` rows give the same tables, columns, kinds and keys. A
/// batch asks these questions of every store of one kind, each through its own new
/// connection, and SQLite's pragmas answer them table by table (a store's `tables()` is
/// a query per table). With the memo a connection reads its schema's rows — one small
/// query, once per read transaction (`Database.ReadTransaction`) — and a schema seen
/// before is answered from here. The answers are still SQLite's own (worked out by the
/// pragmas the first time), never guessed from the text, which a hostile file could word
/// to mislead a pattern.
///
/// Shared by the threads of the process. At most `capacity` schemas are kept, of 16 MiB of
/// text in all: when one more comes, all are forgotten and the memo starts again, so that a
/// long process (a batch over an archive of many kinds, one after the other) keeps the kinds
/// it is at. An answer that threw is not kept.
final class SchemaMemo: @unchecked Sendable {
    static let shared = SchemaMemo(capacity: 32)

    /// What is known of one schema, by question ("tables", "type:NAME", …).
    private final class Answers: @unchecked Sendable {
        let lock = NSLock()
        var known: [String: Any] = [:]
    }

    private let lock = NSLock()
    private var schemas: [StoredSchema: Answers] = [:]
    private var textBytes = 0
    private let capacity: Int
    private static let textLimit = 16 << 20

    init(capacity: Int) { self.capacity = capacity }

    /// What is known of `schema`, made empty when new.
    private func answers(of schema: StoredSchema) -> Answers {
        lock.withLock {
            if let known = schemas[schema] { return known }
            if schemas.count >= capacity || textBytes + schema.bytes.count > Self.textLimit {
                schemas.removeAll()
                textBytes = 0
            }
            let answers = Answers()
            schemas[schema] = answers
            textBytes += schema.bytes.count
            return answers
        }
    }

    /// The answer to `question` about the schema stored as `schema`: the kept one, else
    /// `make`'s, kept.
    func answer<Value>(_ question: String, schema: StoredSchema, make: () throws -> Value) rethrows -> Value {
        let answers = answers(of: schema)
        // Bound before the cast: a missing answer cast to an optional `Value` would pass for a nil one.
        if let kept = answers.lock.withLock({ answers.known[question] }), let value = kept as? Value { return value }
        let value = try make()
        answers.lock.withLock { answers.known[question] = value }
        return value
    }
}

/// A main database's schema as stored: every row of `sqlite_schema` (kind, name, table, SQL
/// text) in one text, each field told from the next by its length in bytes (`-` for null),
/// so no two different schemas read as one. Fields are read as text, as SQLite reads them
/// when it parses the schema.
struct StoredSchema: Hashable, Sendable {
    let bytes: [UInt8]
    /// A hash of `bytes` worked out once, eight bytes at a time (the memo's dictionary
    /// hashes a key on every look-up; SipHash over kilobytes cost more than the look-up saved).
    private let digest: UInt64

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var digest = UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                digest = (digest ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                digest ^= digest >> 29
                index += 8
            }
            while index < raw.count {
                digest = (digest ^ UInt64(raw[index])) &* 0x1000_0000_01B3
                index += 1
            }
        }
        self.digest = digest
    }

    static func == (a: StoredSchema, b: StoredSchema) -> Bool { a.digest == b.digest && a.bytes == b.bytes }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    static let sql = "SELECT type, name, tbl_name, sql FROM main.sqlite_schema"

    /// The rows of `statement` (`sql`), read to their end.
    static func read(_ statement: Statement) throws -> StoredSchema {
        var bytes: [UInt8] = []
        while try statement.step() {
            for column in 0..<4 {
                guard let text = statement.textBytes(column) else {
                    bytes.append(UInt8(ascii: "-"))
                    continue
                }
                bytes += String(text.count).utf8
                bytes.append(UInt8(ascii: ":"))
                bytes += text
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return StoredSchema(bytes: bytes)
    }
}

extension Database {
    /// The main database's schema as stored, read anew; inside a read transaction of a
    /// read-only connection, read once and kept until it ends: nothing can change the schema
    /// meanwhile (this connection cannot write, and another cannot while the transaction holds
    /// its snapshot or shared lock).
    func storedSchema() throws -> StoredSchema {
        if let kept = keptSchemaLock.withLock({ keptSchema.schema }) { return kept }
        let schema = try withStatement(StoredSchema.sql) { try StoredSchema.read($0) }
        keptSchemaLock.withLock { if keptSchema.keeping { keptSchema.schema = schema } }
        return schema
    }

    /// `make`'s answer to `question` about this connection's main schema, kept for every
    /// connection whose schema is stored as the same text (`SchemaMemo`).
    func schemaAnswer<Value>(_ question: String, make: () throws -> Value) throws -> Value {
        try SchemaMemo.shared.answer(question, schema: try storedSchema(), make: make)
    }

    /// A read transaction starts: a read-only connection keeps its schema's text until it ends.
    func keepSchemaWhileReading() {
        guard sqlite3_db_readonly(handle, "main") == 1 else { return }
        keptSchemaLock.withLock { keptSchema = KeptSchema(keeping: true) }
    }

    /// The read transaction ended: the schema may change from now on.
    func forgetKeptSchema() {
        keptSchemaLock.withLock { keptSchema = KeptSchema() }
    }
}

/// A connection's schema text kept over a read transaction (`Database.storedSchema`).
struct KeptSchema {
    var keeping = false
    var schema: StoredSchema?
}
