/// The page cache of every file a run has attached to its destination connection.
///
/// Memory stays flat: 4 MiB of cache per file, filled alike by a small store and a big
/// one (SQLite's sorter takes as much again as the main cache). Larger caches made the
/// runs slower, not faster: big sorts run better in small pieces, and pages looked up at
/// random do not stay cached while a statement fills the cache with the rows it writes.
enum PageCache {
    static let kibibytes = 4096

    /// The pragmas that give each of `schemas` (`main`, `work`, `src`) its cache.
    static func pragmas(_ schemas: String...) -> String {
        schemas.map { "PRAGMA \($0).cache_size = -\(kibibytes)" }.joined(separator: "; ")
    }
}
