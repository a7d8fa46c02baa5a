import Foundation
import ETLStore

/// The two files a step starts from, as bytes: its new store holding the layout's tables
/// (`StoreLayout.tableSQL`), with its plain indexes for a small step
/// (`StoreLayout.plainIndexSQL`), and its work database holding the work tables
/// (`WorkDatabase.creation`), both still empty. Made once per schema in memory, then
/// written out for each store of that schema (`write(store:work:)`).
///
/// A batch of small stores spent a sixth of its CPU time (perf: 17 %) making these files,
/// most of it in the statements: every `CREATE` is parsed, compiled, written to
/// `sqlite_schema` and that row parsed again, in a transaction with journal files of its
/// own. Written out whole, the same empty files cost a `write` each, and SQLite parses
/// their schema once when it first reads them.
///
/// The files are those the statements make on an empty file: SQLite built the image from
/// exactly these statements, with the defaults a new file gets (page size, encoding,
/// rollback journal). Nothing in them depends on the store being migrated.
struct EmptyStoreImage {
    let store: [UInt8]
    let work: [UInt8]

    /// By schema. 32 kept at most: a batch has a few; a program running many pipelines
    /// makes the images of the others each time.
    private static let made = BoundedCache<[String], EmptyStoreImage>(capacity: 32)

    /// The image of a step whose store has the tables (and indexes) `tableSQL` creates.
    static func of(tableSQL: [String]) throws -> EmptyStoreImage {
        try made.value(for: tableSQL) { try make(tableSQL: tableSQL) }
    }

    private static func make(tableSQL: [String]) throws -> EmptyStoreImage {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("ATTACH DATABASE ':memory:' AS work")
        try db.transaction {
            for sql in tableSQL { try db.execute(sql) }
            try db.execute(WorkDatabase.creation)
        }
        return EmptyStoreImage(store: try db.serialized(schema: "main"), work: try db.serialized(schema: "work"))
    }

    /// Writes the image's bytes to the files `store` and `work`, each made afresh or, when
    /// a regular file of a run is there (the work database of the step before:
    /// `WorkArea.prepareForReuse`), rewritten whole in place. Not synced: like every write
    /// to them before the final rename (`synchronous = OFF`), their durability is the
    /// install's fsync.
    func write(store storePath: String, work workPath: String) throws {
        for (path, bytes) in [(storePath, store), (workPath, work)] {
            let fd: Int32
            do {
                // In place: the same bytes in the same file name as a new file would hold,
                // without a new inode (file creation was the costliest part of a small
                // store's set-up), and over its old bytes, then cut to size: emptied
                // first (`O_TRUNC`), the file's blocks would be given back and taken again
                // (a third of a millisecond a store). A link, FIFO or folder there is
                // refused by `open` and replaced by `create` as before.
                fd = try (try? OwnFile.open(path, flags: O_WRONLY)) ?? OwnFile.create(path)
            } catch let failure as OwnFile.Failure {
                throw MigrationError.badDestination(path: path, reason: "cannot create the new store: \(failure.reason)")
            }
            defer { close(fd) }
            // As SQLite says it when it writes the file itself.
            if let failed = OwnFile.write(bytes, to: fd) ?? (ftruncate(fd, off_t(bytes.count)) == 0 ? nil : errno) {
                throw failed == ENOSPC || failed == EDQUOT
                    ? StoreError(path: path, code: SQLiteCode.full, message: "database or disk is full")
                    : StoreError(path: path, code: SQLiteCode.ioError, message: "disk I/O error (\(String(cString: strerror(failed))))")
            }
        }
    }
}
