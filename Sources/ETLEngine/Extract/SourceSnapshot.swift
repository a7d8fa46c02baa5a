import Foundation
import ETLStore

/// The source as it was when the run started, checked after every chunk and before the
/// result is installed: a run reads its source through several connections (the reader,
/// the push-down's attached `src`, the quick check) and over many transactions, so no
/// single read transaction spans it. Instead a program committing to the source during
/// the run stops it with a clear error — the rows read before and after would be two
/// states of the store mixed into one that nobody ever wrote.
///
/// Per chunk it is cheap: `stat` of the store and its `-wal` (size and modification time,
/// to the nanosecond) and `PRAGMA data_version` of the source connection (which changes
/// when any other connection commits). Before installing, also the header bytes with
/// SQLite's file change counter (`SourceIdentity`).
final class SourceSnapshot {
    let path: String
    private let database: Database
    private let identity: SourceIdentity
    /// The bytes `identity.header` fingerprints, as this snapshot read them: compared
    /// whole at the end rather than hashed again.
    private let first: Data
    private let stamp: [Int64]
    private let dataVersion: Int64

    init(path: String, database: Database, identity: SourceIdentity) throws {
        self.path = path
        self.database = database
        self.identity = identity
        first = SourceIdentity.firstBytes(path)
        stamp = Self.stamp(path)
        dataVersion = try database.scalarInt("PRAGMA data_version")
    }

    /// Size and modification time (ns) of the store and of its -wal (zeros when absent).
    private static func stamp(_ path: String) -> [Int64] {
        [path, path + "-wal"].flatMap { file -> [Int64] in
            var info = stat()
            guard stat(file, &info) == 0 else { return [0, 0] }
            return [Int64(info.st_size), Int64(Platform.modificationTime(info).tv_sec) * 1_000_000_000 + Int64(Platform.modificationTime(info).tv_nsec)]
        }
    }

    /// Throws when the source changed since the run started.
    func check() throws {
        let version = try? database.scalarInt("PRAGMA data_version")
        guard Self.stamp(path) == stamp, version == dataVersion else { throw changed() }
    }

    /// `check`, and the header bytes too: before anything is installed.
    func checkWhole() throws {
        try check()
        guard let (read, first) = try? SourceIdentity.unhashed(path), first == self.first else { throw changed() }
        var now = read
        now.header = identity.header
        guard now.differences(from: identity).isEmpty else { throw changed() }
    }

    private func changed() -> MigrationError {
        .badSource(path: path, reason: "changed while the run read it (a program wrote to it): the rows read before and after "
            + "would be two states of the store mixed into one. Nothing was replaced. Stop the program that writes it, "
            + "or copy the store while it is idle and migrate the copy")
    }
}
