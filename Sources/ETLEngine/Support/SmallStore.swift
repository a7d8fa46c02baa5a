import ETLStore

/// A store too small for a second connection (`SideWork`) to pay for itself: its checks
/// run on the run's own connection instead.
///
/// A second connection costs the file opened, its whole schema parsed again, a thread
/// started and joined, whatever the store's size: for a store of 50 books (36 KiB), more
/// than the checks it would take over, which read a few pages. The quick check reads
/// every page, so from a few MiB on it takes longer than that set-up, and the second core
/// pays again.
enum SmallStore {
    /// Stores (main file and WAL, as a reader sees them) below this size are small.
    /// Tests set it to 0 to send every store to the second connection.
    nonisolated(unsafe) static var maximumBytes: Int64 = 1 << 20

    /// Whether `database`'s `main` holds less than `maximumBytes`: `PRAGMA page_count`
    /// counts the pages a reader sees, the WAL's included.
    static func holds(_ database: Database) throws -> Bool {
        let pages = try database.scalarInt("PRAGMA main.page_count")
        let pageSize = try database.scalarInt("PRAGMA main.page_size")
        return pages < maximumBytes / max(pageSize, 1)
    }
}
