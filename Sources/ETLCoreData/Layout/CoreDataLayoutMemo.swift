import Foundation

/// What a Core Data layout works out from its model alone, the first time it is asked: its
/// schema (`schemaSQL()`) and its version hashes (`versionHashes()`).
///
/// A batch runs every store of one kind with one plan (`PlanCache`), and each run asks its
/// layouts for these several times (the empty store, the deferred and unique indexes, the
/// triggers, the metadata, the checks of what the source holds): callgrind of `etl batch`
/// over 20 Core Data stores put `schemaSQL` at 14 % of all instructions and the version
/// hashes at 4 %, the same answers worked out again and again.
///
/// Kept by reference, so the copies of a layout share it. Sound because the schema is a
/// function of the layout's model (`let`), its names and its kept indexes, and a layout
/// whose names or kept indexes change gets a memo of its own (their `didSet`), which the
/// copies made before keep not; the hashes are a function of the model and of the recorded
/// hashes they are kept with, and are worked out again for others.
final class CoreDataLayoutMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var schema: [String]?
    private var hashes: (recorded: [String: Data], hashes: VersionHashes)?

    /// The schema kept, else `work()`'s, kept. (Worked out outside the lock: two threads
    /// asking at once both work it out, and keep the same answer.)
    func schemaSQL(_ work: () -> [String]) -> [String] {
        if let known = lock.withLock({ schema }) { return known }
        let made = work()
        lock.withLock { schema = made }
        return made
    }

    /// The hashes kept for `recorded`, else `work()`'s, kept (an error is not).
    func versionHashes(recorded: [String: Data], _ work: () throws -> VersionHashes) rethrows -> VersionHashes {
        if let known = lock.withLock({ hashes }), known.recorded == recorded { return known.hashes }
        let made = try work()
        lock.withLock { hashes = (recorded, made) }
        return made
    }
}
