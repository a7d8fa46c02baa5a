import Foundation

/// The run lock of one `etl batch --out` job, carried from store to store instead of made
/// and removed for each (`RunLock.move`): between two stores the locked file waits under
/// a name of the job's own beside the batch's lock (`parking`), and the next store's run
/// takes it by renaming it to its own lock file.
///
/// Every run still holds `DESTINATION.etl-lock`, locked, while it works: another `etl run`
/// or batch on the same destination is refused as before. Only the file is the same: a
/// batch of small stores made and removed one file per store for its lock, and on a file
/// system that allocates inodes slowly (ext4 without a journal looks past every recently
/// freed inode for a new one) that cost a tenth of its time.
///
/// A run whose lock file is already there (a stale one, or another run's), or on another
/// file system than the parking name, takes a lock of its own as before (`RunLock.init`).
/// A killed batch leaves its parking files unlocked; the next batch of the same manifest
/// removes them (`removeStale`).
public final class RunLockCarrier: @unchecked Sendable {
    /// Where the lock waits between two stores.
    public let parking: String
    private var parked: RunLock?
    private let mutex = NSLock()

    public init(parking: String) {
        self.parking = parking
    }

    /// The lock of a run on `destination`: the parked one moved there, else a new one.
    /// Throws as `RunLock.init` does when another run holds it.
    public func take(destination: String) throws -> RunLock {
        mutex.lock()
        let lock = parked
        parked = nil
        mutex.unlock()
        if let lock {
            if lock.move(to: RunLock.path(forDestination: destination), destination: destination) { return lock }
            // Its lock file is there already: that run's lock decides, as for any run; this
            // one stays parked for the next.
            mutex.lock()
            parked = lock
            mutex.unlock()
        }
        return try RunLock(destination: destination)
    }

    /// Takes back the lock of a finished run: parked when nothing is parked and it moves,
    /// else released (its file removed) as a run's own lock is.
    public func park(_ lock: RunLock) {
        mutex.lock(); defer { mutex.unlock() }
        if parked == nil, lock.move(to: parking, destination: parking) {
            parked = lock
        } else {
            lock.release()
        }
    }

    /// Releases the parked lock and removes its file: at the job's end.
    public func release() {
        mutex.lock(); defer { mutex.unlock() }
        parked?.release()
        parked = nil
    }

    /// Removes the parking files named `prefix…`: those of a killed batch. Called by the
    /// holder of the lock their names derive from (`BatchLock`), so no live process has them.
    /// (A file killed in the middle of a move keeps its other name, a stale lock file of one
    /// link that the next run on that store takes.)
    public static func removeStale(prefix: String) {
        let folder = (prefix as NSString).deletingLastPathComponent
        let name = (prefix as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return }
        for file in names where file.hasPrefix(name) {
            unlink((folder as NSString).appendingPathComponent(file))
        }
    }
}
