import Foundation
import ETL

/// In place, a store is migrated by one batch at a time: a batch takes `STORE.etl-batch-lock`
/// (a `RunLock`, released by the kernel if the batch is killed) for the whole replacement —
/// the link to the original, the run, the move of the original to its backup — around
/// the run's own `STORE.etl-lock`. Another batch on the same archive finds it taken,
/// leaves the store to the batch that holds it and reports it so, not as failed; once
/// it is free, a batch plans it first and finds it at the target version.
enum BatchStoreLock {
    static func path(of store: String) -> String { store + ".etl-batch-lock" }

    /// The lock, or nil when another batch holds it.
    static func take(_ store: BatchStore) throws -> RunLock? {
        try RunLock.take(destination: store.path, path: path(of: store.path))
    }

    /// The entry of a store another batch is migrating: not this batch's to record.
    static func taken(_ store: BatchStore) -> BatchStoreResult {
        var result = BatchStoreResult(store: store, status: .skipped)
        let holder = RunLock.holder(lockFile: path(of: store.path)).map { " (process \($0))" } ?? ""
        result.notes.append("taken by another batch\(holder), which migrates it in place; left to that batch")
        return result
    }
}
