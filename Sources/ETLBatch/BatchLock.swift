import Foundation
import ETL

/// One batch per manifest at a time with `--out`: two overlapping runs of one batch (two
/// cron jobs) would migrate the same stores into the same results and record each other's
/// work as failures. The batch holds `MANIFEST.lock` (a `RunLock`: released by the kernel
/// if the batch is killed) for its whole run; a second one stops before touching any store,
/// naming the first. Shards keep their own manifests, so they run side by side. In place,
/// batches share a manifest on purpose and lock store by store instead (`BatchStoreLock`).
enum BatchLock {
    static func path(ofManifest manifest: String) -> String { manifest + ".lock" }

    /// The lock, nil in place; throws `BatchUsageError` when another batch holds it.
    static func take(_ options: BatchOptions) throws -> RunLock? {
        guard case .directory = options.output else { return nil }
        let path = path(ofManifest: options.manifest)
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let lock: RunLock?
        do {
            lock = try RunLock.take(destination: options.manifest, path: path)
        } catch {
            throw BatchUsageError("cannot lock the batch (\(path)): \(error)")
        }
        guard let lock else {
            let holder = RunLock.holder(lockFile: path).map { $0 > 0 ? "process \($0)" : "a process" } ?? "a process"
            throw BatchUsageError("another etl batch (\(holder)) is running this batch, into the same output and manifest "
                                  + "(\(options.manifest)); this one stops without touching any store. Let that one finish, "
                                  + "then run the same command again (its lock \(path) goes away by itself when that process ends)")
        }
        return lock
    }
}
