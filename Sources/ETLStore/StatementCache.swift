import Foundation

/// The statements a connection ran by text (`Database.rows`, `scalarInt`, `run`), kept
/// prepared for the next time the same text runs on it.
///
/// A small store's run asks its connections the same questions many times — a table's
/// kind and columns, `PRAGMA data_version` after each commit, a table's key range — and
/// each `sqlite3_prepare` parses and plans the text again: in `etl batch` over stores of 50
/// books, preparing was a quarter of all instructions. A statement taken from here is the
/// one prepared before, reset and with its bindings cleared, so it runs as a new one would;
/// SQLite prepares it again by itself when the schema changed since.
///
/// A statement is taken out while it runs and given back after, so two threads (or a
/// statement run from inside another's SQL function) never share one; the second gets a
/// statement of its own. One that failed is not given back. At most `capacity` are kept,
/// the oldest going first; `removeAll()` finalizes them, which the connection does before
/// it closes (a kept statement would keep the file open).
final class StatementCache: @unchecked Sendable {
    static let capacity = 24

    private let lock = NSLock()
    private var idle: [String: Statement] = [:]
    /// The texts of `idle`, oldest first.
    private var order: [String] = []

    /// The idle statement of text `sql`, taken out of the cache, or nil.
    func take(_ sql: String) -> Statement? {
        lock.withLock {
            guard let statement = idle.removeValue(forKey: sql) else { return nil }
            order.removeAll { $0 == sql }
            return statement
        }
    }

    /// Keeps `statement` (run to its end or reset, its bindings cleared) for the next run of
    /// its text. Nothing is kept once the connection closed.
    func give(_ statement: Statement) {
        statement.reset()
        let dropped: Statement? = lock.withLock {
            guard !closed, idle[statement.sql] == nil else { return statement }
            idle[statement.sql] = statement
            order.append(statement.sql)
            guard order.count > Self.capacity else { return nil }
            return idle.removeValue(forKey: order.removeFirst())
        }
        _ = dropped  // finalized here, outside the lock
    }

    private var closed = false
    /// Statements prepared through this cache's connection by `Database.withStatement` (for tests).
    private(set) var prepared = 0

    /// Counts a statement prepared because none was kept.
    func countPrepared() { lock.withLock { prepared += 1 } }

    /// How many are kept (for tests).
    var count: Int { lock.withLock { idle.count } }

    /// Finalizes every kept statement; later ones are not kept.
    func removeAll() {
        let kept = lock.withLock { () -> [Statement] in
            closed = true
            defer { idle = [:]; order = [] }
            return Array(idle.values)
        }
        _ = kept
    }
}
