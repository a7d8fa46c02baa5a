import Foundation
import ETLStore

/// SQLite's quick check of the source, on a thread and a connection of its own, while
/// the run reads the store: on two cores the check costs no wall time. The engine waits
/// for it before the new store is moved into place, so a damaged source never yields a
/// result (what the run read from it is thrown away with the work files).
final class SourceCheck: @unchecked Sendable {
    private let path: String
    private let database: Database
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: Result<[String], Error>?

    init(path: String, busyTimeout: Int32) throws {
        self.path = path
        do {
            database = try Database(path: path, mode: .readOnly, busyTimeout: busyTimeout, hardened: true)
        } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: SourceStore.reason(for: error, size: Self.size(of: path), busyTimeout: busyTimeout))
        }
        let database = self.database
        Thread.detachNewThread { [self] in
            let result = Result { try database.quickCheck(limit: 10) }
            lock.lock()
            outcome = result
            lock.unlock()
            finished.signal()
        }
    }

    /// Waits for the check; throws `MigrationError.badSource` naming the damage it found.
    func wait() throws {
        finished.wait()
        finished.signal()  // later waits return at once
        lock.lock()
        let outcome = self.outcome!
        lock.unlock()
        let problems: [String]
        do { problems = try outcome.get() } catch let error as StoreError {
            throw MigrationError.badSource(path: path, reason: SourceStore.reason(for: error, size: Self.size(of: path), busyTimeout: database.busyTimeout))
        }
        if !problems.isEmpty {
            throw MigrationError.badSource(path: path, reason: SourceStore.damaged(problems, size: Self.size(of: path)))
        }
    }

    /// Stops the check (the run failed anyway) and waits for its thread.
    func cancel() {
        database.interrupt()
        finished.wait()
        finished.signal()
    }

    private static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
