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
    /// Whether `database`'s `main` holds less than `maximumBytes`
    /// (`EngineTuning.smallStoreBytes`): `PRAGMA page_count` counts the pages a reader sees,
    /// the WAL's included.
    static func holds(_ database: Database, below maximumBytes: Int64) throws -> Bool {
        let pages = try database.scalarInt("PRAGMA main.page_count")
        let pageSize = try database.scalarInt("PRAGMA main.page_size")
        return pages < maximumBytes / max(pageSize, 1)
    }
}
