import Foundation
import ETLStore

/// Work on a connection and a thread of its own: what the second core does while the
/// run's connection goes on (the source's quick check during the whole run; half of the
/// checks of validation). SQLite runs the statements of one connection one at a time, so
/// a second connection is the only way to use both cores on one store.
///
/// The body only reads: with the rollback journal the run uses, readers of a file share
/// it, and a writer's commit waits for them.
///
/// A second connection has a price of its own: for a `SmallStore` it is more than the work
/// it takes over, and the same body runs at once on the caller's own connection instead
/// (`init(inlineOn:_:)`).
final class SideWork<Result: Sendable>: @unchecked Sendable {
    let database: Database
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: Swift.Result<Result, Error>?
    /// The body ran on the caller's connection: nothing to wait for or to stop.
    private let inline: Bool

    init(on database: Database, _ body: @escaping @Sendable (Database) throws -> Result) {
        self.database = database
        inline = false
        Thread.detachNewThread { [self] in
            let result = Swift.Result { try body(database) }
            lock.lock()
            outcome = result
            lock.unlock()
            finished.signal()
        }
    }

    /// Runs `body` now, on the caller's thread and `database` (the caller's own
    /// connection), and keeps its result or error for `wait()`: the same work and the same
    /// outcome as on a second connection, for a store too small for one to pay.
    init(inlineOn database: Database, _ body: (Database) throws -> Result) {
        self.database = database
        inline = true
        outcome = Swift.Result { try body(database) }
    }

    /// The body ran already, on the caller's connection: `wait()` returns at once.
    var ranInline: Bool { inline }

    /// Waits for the body; its result, or the error it threw.
    func wait() throws -> Result {
        if !inline {
            finished.wait()
            finished.signal()  // later waits return at once
        }
        lock.lock()
        defer { lock.unlock() }
        return try outcome!.get()
    }

    /// Stops the body (its result is not wanted) and waits for its thread, so that nothing
    /// reads the file once the caller goes on.
    func cancel() {
        guard !inline else { return }
        database.interrupt()
        finished.wait()
        finished.signal()
    }
}
