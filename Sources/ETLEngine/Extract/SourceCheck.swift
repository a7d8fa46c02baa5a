import Foundation
import ETLStore

/// SQLite's quick check of the source, on a thread and a connection of its own, while
/// the run reads the store: on two cores the check costs no wall time. The engine waits
/// for it before the new store is moved into place, so a damaged source never yields a
/// result (what the run read from it is thrown away with the work files).
///
/// A `SmallStore` is checked at once on the run's own connection to it instead, before a
/// row is read: the same `PRAGMA quick_check` on a connection hardened alike, its outcome
/// reported by `wait()` at the same points of the run, without the second connection's
/// open, schema parse and thread.
final class SourceCheck: Sendable {
    private let path: String
    private let database: Database
    private let work: SideWork<[String]>

    /// - Parameter source: the run's own connection to the store, read-only and hardened
    ///   (`SourceStore`): where a small store is checked.
    ///   - smallStoreBytes: `EngineTuning.smallStoreBytes`.
    init(path: String, source: Database, busyTimeout: Int32, smallStoreBytes: Int64) throws {
        self.path = path
        do {
            if try SmallStore.holds(source, below: smallStoreBytes) {
                database = source
                work = SideWork(inlineOn: source) { try $0.quickCheck(limit: 10) }
                return
            }
            database = try Database(path: path, mode: .readOnly, busyTimeout: busyTimeout, hardened: true)
        } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: SourceStore.reason(for: error, size: Self.size(of: path), busyTimeout: busyTimeout))
        }
        work = SideWork(on: database) { try $0.quickCheck(limit: 10) }
    }

    /// Waits for the check; throws `MigrationError.badSource` naming the damage it found.
    func wait() throws {
        let problems: [String]
        do { problems = try work.wait() } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: SourceStore.reason(for: error, size: Self.size(of: path), busyTimeout: database.busyTimeout))
        }
        if !problems.isEmpty {
            throw MigrationError.badSource(path: path, reason: SourceStore.damaged(problems, size: Self.size(of: path)))
        }
    }

    /// Stops the check (the run failed anyway) and waits for its thread.
    func cancel() {
        work.cancel()
    }

    private static func size(of path: String) -> Int {
        Int(FileStatus.size(of: path))
    }
}
