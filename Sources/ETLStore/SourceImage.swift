import CSQLite
import Foundation

/// A source store's pages as SQLite reads them through its `-wal`, held in memory, so that
/// the run's connections read the store from there instead of from its file.
///
/// To read a store whose `-wal` holds transactions, SQLite makes a `-shm` index beside it
/// (and an empty `-wal` when there is none), rebuilds the index by reading the whole WAL,
/// and takes locks in it at every read transaction of every connection. For a small
/// store in an archive that is much of what reading it costs, and each store has a file
/// made and removed in the archive's folder. An image built by `SourceStore` from the file
/// and the WAL's committed frames (`WALCheck`, frame by frame as SQLite's recovery takes
/// them) is what SQLite would read: the same pages, with the header's WAL mode bytes (18
/// and 19) set to 1, which SQLite needs to read the pages from memory and which no value
/// depends on.
///
/// The image is a database of SQLite's in-memory file system (`memdb`) under a name of
/// this process, which every connection opening it shares, read-only (`uri`): the
/// connection that holds it writes nothing after it is filled, and it lives until the
/// last connection to it closes. It is found by the store's path while its `Registration`
/// lives (the `SourceStore` that built it): `Database(path:mode:.readOnly, hardened: true)`
/// and `attach(source:uri:as:)` read it instead of the file; without one they read the file.
public final class SourceImage: @unchecked Sendable {
    /// The store's path, as the run names it.
    public let path: String
    /// The URI that opens the image read-only (SQLite refuses every write to it).
    public let uri: String
    /// Holds the image while this lives.
    private let holder: Database

    /// The image of `bytes`, the store's pages with the WAL's committed frames applied
    /// (the header's WAL mode bytes are set here). Throws SQLite's error when it cannot be filled.
    public init(path: String, bytes: consuming [UInt8]) throws {
        self.path = path
        let name = "/etl-source-\(getpid())-\(Self.nextNumber())"
        uri = "file:\(name)?vfs=memdb&mode=ro"
        holder = try Database(path: "file:\(name)?vfs=memdb", mode: .create)
        // Written whole into the new (empty) file through SQLite's in-memory file system
        // itself, before anything reads it: the holder's pages are SQLite's own, whatever
        // lives longer, and nothing else knows the name yet.
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(holder.handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard found == SQLITE_OK, let file, let write = file.pointee.pMethods?.pointee.xWrite else {
            throw StoreError(path: path, code: SQLITE_CANTOPEN, message: "cannot hold the store's pages in memory")
        }
        var pages = consume bytes
        if pages.count >= 20 {
            pages[18] = 1
            pages[19] = 1
        }
        let written = pages.count > Int(Int32.max) ? SQLITE_TOOBIG : pages.withUnsafeBytes { write(file, $0.baseAddress, Int32($0.count), 0) }
        guard written == SQLITE_OK else {
            throw StoreError(path: path, code: written, message: "cannot copy the store's pages into memory: " + String(cString: sqlite3_errstr(written)))
        }
    }

    // MARK: Where a run finds it

    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered: [String: [ObjectIdentifier: SourceImage]] = [:]  // under `lock`
    nonisolated(unsafe) private static var made = 0  // under `lock`

    private static func nextNumber() -> Int {
        lock.withLock {
            made += 1
            return made
        }
    }

    /// The image registered for `path`, if any.
    public static func registered(for path: String) -> SourceImage? {
        lock.withLock { registered[path]?.values.first }
    }

    /// Keeps `image` findable by its path until the registration is released (or dropped).
    public static func register(_ image: SourceImage) -> Registration {
        let registration = Registration(image: image)
        lock.withLock { registered[image.path, default: [:]][ObjectIdentifier(registration)] = image }
        return registration
    }

    /// An image's being findable by its path; released once, at the latest when dropped.
    public final class Registration: @unchecked Sendable {
        public let image: SourceImage
        private var released = false
        private let lock = NSLock()

        fileprivate init(image: SourceImage) { self.image = image }

        public func release() {
            guard lock.withLock({ () -> Bool in defer { released = true }; return !released }) else { return }
            let key = ObjectIdentifier(self)
            SourceImage.lock.withLock {
                registered[image.path]?[key] = nil
                if registered[image.path]?.isEmpty == true { registered[image.path] = nil }
            }
        }

        deinit { release() }
    }
}

extension Database {
    /// Attaches the source store at `path` as `schema`, read-only: its registered image
    /// (`SourceImage`) when there is one, else the file through `uri`.
    public func attach(source path: String, uri: String, as schema: String) throws {
        let opened = SourceImage.registered(for: path)?.uri ?? uri
        try execute("ATTACH DATABASE \(SQLValue.text(opened).sqlLiteral) AS \(schema)")
    }
}
