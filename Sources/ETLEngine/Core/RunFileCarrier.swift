import Foundation

/// The files one `etl batch --out` job carries from store to store instead of making and
/// removing them for each: its run lock (`RunLock.move`) and its spare work database.
/// Between two stores each waits under a name of the job's own beside the batch's lock
/// (`parking`, `workParking`), and the next store's run renames it to its own name.
///
/// Every run still holds `DESTINATION.etl-lock`, locked, while it works: another `etl run`
/// or batch on the same destination is refused as before. Only the files are the same: a
/// batch of small stores made and removed two files per store for them, and on a file
/// system that allocates inodes slowly (ext4 without a journal looks past every recently
/// freed inode for a new one) each pair cost near a tenth of its time. The work database
/// is rewritten whole from its image where the run would have made it (`EmptyStoreImage`),
/// so nothing of the store before is left in it.
///
/// A run whose lock file or work database is already there (a stale one, or another
/// run's), or on another file system than the parking names, makes its own as before.
/// A killed batch leaves its parking files unlocked; the next batch of the same manifest
/// removes them (`removeStale`).
public final class RunFileCarrier: @unchecked Sendable {
    /// Where the lock waits between two stores.
    public let parking: String
    /// Where the spare work database waits between two stores.
    public var workParking: String { parking + ".work" }
    private var parked: RunLock?
    private var workParked = false
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

    /// Puts the spare work database at `path`, a run's work database about to be rewritten
    /// whole in place (`Engine.createOutput`), when nothing is there; else removes it.
    public func placeWork(at path: String) {
        mutex.lock(); defer { mutex.unlock() }
        guard workParked else { return }
        workParked = false
        if !RunLock.moveFile(workParking, to: path) { unlink(workParking) }
    }

    /// Takes back the work database at `path` of a run that finished: kept for the next
    /// store when it is a regular file of one name and nothing is parked; else left where
    /// it is, for the run to remove with its other work files.
    public func parkWork(from path: String) {
        mutex.lock(); defer { mutex.unlock() }
        var info = stat()
        guard !workParked, lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else { return }
        workParked = RunLock.moveFile(path, to: workParking)
    }

    /// Releases the parked lock and removes the parked files: at the job's end.
    public func release() {
        mutex.lock(); defer { mutex.unlock() }
        parked?.release()
        parked = nil
        if workParked { unlink(workParking) }
        workParked = false
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
