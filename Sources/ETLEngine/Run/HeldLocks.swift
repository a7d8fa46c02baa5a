import ETLStore

/// The locks on a step's new store and work database, taken once for all of its
/// transactions while no other connection opens those files (SQLite's
/// `locking_mode = EXCLUSIVE`).
///
/// Each transaction of a connection otherwise takes and gives back the locks of every file
/// it holds, looks for a hot journal and a WAL beside each, and rereads each header to
/// learn whether another connection changed it: a small store's step runs a dozen, on its
/// store and its work database, with about 150 system calls that learn nothing. Held, the
/// locks shut out every other connection to these files (it waits, then fails). So only
/// for a step within one chunk with its journals in memory, whose files no rerun reads,
/// and given back (`release`) before anything may open them on another connection: a
/// step run row by row (`RelateStage`, `LookupPool`), validation with a second connection
/// (`ValidateStage.usesSecondConnection`), a hook (`RunOptions.beforeValidation`), and at
/// the latest when the step is built.
final class HeldLocks {
    private let db: Database
    private var held = true

    /// Holds the locks of `db`'s store (`main`) and work database (`work`) from their next
    /// transaction on.
    init(_ db: Database) throws {
        self.db = db
        try db.execute("PRAGMA main.locking_mode = EXCLUSIVE; PRAGMA work.locking_mode = EXCLUSIVE")
    }

    /// Gives the locks back (once): SQLite releases a file's lock in normal mode at its
    /// next read, which each file gets here.
    func release() throws {
        guard held else { return }
        held = false
        try db.execute("PRAGMA main.locking_mode = NORMAL; PRAGMA work.locking_mode = NORMAL")
        _ = try db.rows("SELECT count(*) FROM main.sqlite_schema")
        _ = try db.rows("SELECT count(*) FROM work.sqlite_schema")
    }
}
