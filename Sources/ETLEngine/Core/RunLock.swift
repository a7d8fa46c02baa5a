import Foundation
import ETLStore

/// One run per destination: a lock file beside it, `DESTINATION.etl-lock`, holding the
/// owner's process ID, locked with `flock(LOCK_EX | LOCK_NB)` on an open descriptor.
///
/// The kernel holds the lock, not the file: a run that is killed (or crashes, or its
/// machine reboots) drops it with its last descriptor, so a stale lock file never blocks
/// the next run; that run locks it and writes its own ID. A second run fails at once,
/// naming the first one's process ID. Released by `release()` or on deinit, which
/// removes the file while still holding the lock (so a waiter that opened it sees it
/// was removed and tries again, and never shares the lock).
///
///     let lock = try RunLock(destination: destination)
///     defer { lock.release() }
///
/// `flock` locks belong to an open file description: two `RunLock`s in one process
/// conflict just like two processes do. The descriptor is close-on-exec, so programs the
/// run starts do not inherit the lock.
public final class RunLock: @unchecked Sendable {
    /// The lock file: the destination's path + ".etl-lock".
    public private(set) var path: String
    public private(set) var destination: String
    private var descriptor: Int32
    private let mutex = NSLock()

    public static func path(forDestination destination: String) -> String { destination + ".etl-lock" }

    /// Takes the lock, or throws `MigrationError.badDestination` at once: when another run
    /// holds it (naming its process ID), or when the lock file cannot be made.
    public convenience init(destination: String) throws {
        try self.init(destination: destination, path: RunLock.path(forDestination: destination))
    }

    /// Takes the lock in the file `path` (another name than a run's own: a batch takes one
    /// for a store's whole replacement in place, around the run's), or returns nil when
    /// another process holds it.
    public static func take(destination: String, path: String) throws -> RunLock? {
        do {
            return try RunLock(destination: destination, path: path)
        } catch is Busy {
            return nil
        }
    }

    /// The lock is held by another process (`owner`).
    private struct Busy: Error {
        var owner: Int32?
    }

    private convenience init(destination: String, path: String) throws {
        do {
            try self.init(destination: destination, lockFile: path)
        } catch let busy as Busy where path == RunLock.path(forDestination: destination) {
            throw MigrationError.badDestination(path: destination, reason: RunLock.busyReason(owner: busy.owner, path: path))
        }
    }

    private init(destination: String, lockFile: String) throws {
        self.destination = destination
        self.path = lockFile
        var attempts = 0
        while true {
            attempts += 1
            // Never through a planted link, FIFO or device: the PID goes into our own file only.
            let fd: Int32
            do {
                fd = try OwnFile.open(path, flags: O_RDWR | O_CREAT)
            } catch let failure as OwnFile.Failure where failure.code == nil && attempts < 100 && RunLock.linkCount(path) > 1 {
                // A batch job's lock being moved (`move(to:destination:)`) has a second name
                // for an instant: it is held, ask again (a link planted there stays, and is refused).
                _ = failure
                usleep(1_000)
                continue
            } catch let failure as OwnFile.Failure {
                let folder = (destination as NSString).deletingLastPathComponent
                switch failure.code {
                case ENOENT?, ENOTDIR?:
                    throw MigrationError.badDestination(path: destination, reason: "the folder \(folder.isEmpty ? "." : folder) does not exist: create it first")
                case EACCES?, EROFS?, EPERM?:
                    throw MigrationError.badDestination(path: destination, reason: "the folder \(folder.isEmpty ? "." : folder) is not writable (cannot create the lock file \(path): \(failure.reason))")
                default:
                    throw MigrationError.badDestination(path: destination, reason: "cannot use the lock file \(failure)")
                }
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                guard code == EWOULDBLOCK || code == EAGAIN || code == EINTR else {
                    close(fd)
                    throw MigrationError.badDestination(path: destination, reason: "cannot lock \(path): \(String(cString: strerror(code)))")
                }
                let owner = RunLock.owner(fd: fd)
                close(fd)
                // `holder(ofDestination:)` takes the lock for an instant to probe it: ask
                // again twice, briefly, before blaming another run.
                if attempts < 3 { usleep(30_000); continue }
                throw Busy(owner: owner)
            }
            // Locked; but a releasing owner may have removed the file between our open()
            // and flock(), and another run may have made a new one since: then we hold a
            // lock on a file nobody else sees. Start again on the file that is there.
            guard RunLock.isCurrent(fd: fd, path: path) else {
                close(fd)
                if attempts < 100 { continue }
                throw MigrationError.badDestination(path: destination, reason: "cannot lock \(path): it keeps being replaced")
            }
            let text = "\(getpid())\n"
            let written = text.utf8CString.withUnsafeBufferPointer { buffer -> Int in
                guard ftruncate(fd, 0) == 0 else { return -1 }
                return pwrite(fd, buffer.baseAddress, buffer.count - 1, 0)
            }
            guard written == text.utf8.count else {
                let code = errno
                unlink(path)
                close(fd)
                throw MigrationError.badDestination(path: destination, reason: "cannot write the lock file \(path): \(String(cString: strerror(code)))")
            }
            descriptor = fd
            return
        }
    }

    /// Whether this lock is still held (not yet released).
    public var isHeld: Bool {
        mutex.lock(); defer { mutex.unlock() }
        return descriptor >= 0
    }

    /// Releases the lock and removes the file (once; later calls do nothing).
    public func release() {
        mutex.lock(); defer { mutex.unlock() }
        guard descriptor >= 0 else { return }
        // Removed while still locked, and only if it is still our file.
        if RunLock.isCurrent(fd: descriptor, path: path) { unlink(path) }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    /// Moves the held lock to the lock file `newPath`, of `newDestination`: the same locked
    /// file under the new name (a link made there, then the old name removed), so no file is
    /// made or freed (`RunFileCarrier`). Never replaces a file there: false, the lock still
    /// held where it was, when one is there (another run's lock, or a stale one) or the
    /// link cannot be made (another file system).
    ///
    /// For an instant the file has both names, and `OwnFile` refuses to open a file of two
    /// links: a run opening either name then asks again (`init`), as it does while a lock
    /// is released.
    public func move(to newPath: String, destination newDestination: String) -> Bool {
        mutex.lock(); defer { mutex.unlock() }
        guard descriptor >= 0, RunLock.isCurrent(fd: descriptor, path: path), RunLock.moveFile(path, to: newPath) else { return false }
        (path, destination) = (newPath, newDestination)
        return true
    }

    /// Renames the file at `from` to `to` unless a file is there: a link made, then the old
    /// name removed (`rename` would replace it). Also `RunFileCarrier`'s work database.
    static func moveFile(_ from: String, to: String) -> Bool {
        guard link(from, to) == 0 else { return false }
        unlink(from)
        return true
    }

    /// The process ID of the run holding the lock on `destination` (0 when it holds it but
    /// its ID cannot be read), or nil when no run holds it (for `etl status`). Takes and
    /// drops a shared lock to find out; never waits.
    public static func holder(ofDestination destination: String) -> Int32? {
        holder(lockFile: path(forDestination: destination))
    }

    /// The process ID holding the lock in the file `path`, 0 when held by an unknown one, nil when free.
    public static func holder(lockFile path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return owner(fd: fd) ?? 0
    }

    static func busyReason(owner: Int32?, path: String) -> String {
        let who = owner.map { "process \($0)" } ?? "process unknown"
        return "another etl run (\(who)) is working on this destination; wait for it or stop it "
            + "(the lock \(path) goes away by itself when that process ends)"
    }

    /// The process ID written in the lock file. A run that has just locked it may not have
    /// written it yet: asked again a few times, briefly.
    private static func owner(fd: Int32) -> Int32? {
        for attempt in 0..<5 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
            if n > 0, let text = String(bytes: buffer.prefix(n), encoding: .utf8),
               let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 {
                return pid
            }
            if attempt < 4 { usleep(20_000) }
        }
        return nil
    }

    /// The number of names of the file at `path` (0 when there is none).
    private static func linkCount(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_nlink) : 0
    }

    /// Whether `path` still names the file open on `fd`.
    private static func isCurrent(fd: Int32, path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}
