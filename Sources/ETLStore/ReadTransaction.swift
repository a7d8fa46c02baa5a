import CSQLite

/// Many reads on a connection as one read transaction (`BEGIN` … `COMMIT`).
///
/// Outside a transaction every statement is a transaction of its own: SQLite takes the
/// file's shared lock (three `fcntl`s), looks for a hot journal and a `-wal` (two `stat`s),
/// reads the header to learn whether its page cache is still good, and lets the lock go
/// again (one more `fcntl`). A run's set-up asks a small source some fifty questions (its
/// tables, columns, keys, counts): three hundred system calls, more than its rows cost.
/// Inside one transaction the lock is taken once, and every answer comes from one state of
/// the file.
///
/// The shared lock is held until `end()`: a program writing the store in the meantime
/// waits for it (as it waits for any reader), so hold it over work that only reads and
/// takes little time. Inside a transaction already (the caller's own), it does nothing.
extension Database {
    public final class ReadTransaction {
        private let database: Database
        private var open: Bool

        init(_ database: Database) throws {
            self.database = database
            open = sqlite3_get_autocommit(database.handle) != 0
            if open {
                try database.execute("BEGIN")
                database.keepSchemaWhileReading()
            }
        }

        /// Ends the transaction, letting go of the lock (once; later calls do nothing).
        public func end() {
            guard open else { return }
            open = false
            database.forgetKeptSchema()
            // Nothing was written: a read transaction's end cannot fail but by a closed connection.
            try? database.execute("COMMIT")
        }

        deinit { end() }
    }

    /// Starts a read transaction, ended by `end()` (or when the value goes).
    public func beginReading() throws -> ReadTransaction {
        try ReadTransaction(self)
    }

    /// `body`'s reads in one read transaction.
    public func reading<T>(_ body: () throws -> T) throws -> T {
        let transaction = try beginReading()
        defer { transaction.end() }
        return try body()
    }
}
