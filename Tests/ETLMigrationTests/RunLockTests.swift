import Foundation
import XCTest
import ETLEngine
import ETLExpression
import ETL

/// One run per destination: `RunLock`, a flock'ed `DESTINATION.etl-lock`.
final class RunLockTests: XCTestCase {
    var folder: TemporaryFolder!
    var destination: String!
    var lockPath: String { destination + ".etl-lock" }

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        destination = folder.path("v3.sqlite")
    }

    override func tearDown() { folder = nil }

    private func contents(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheLockFileHoldsTheOwnersPIDAndGoesAwayOnRelease() throws {
        let lock = try RunLock(destination: destination)
        XCTAssertEqual(lock.path, lockPath)
        XCTAssertTrue(lock.isHeld)
        XCTAssertEqual(contents(lockPath), "\(getpid())")
        XCTAssertEqual(RunLock.holder(ofDestination: destination), getpid())
        lock.release()
        XCTAssertFalse(lock.isHeld)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lockPath))
        XCTAssertNil(RunLock.holder(ofDestination: destination))
        lock.release()  // a second release does nothing
    }

    func testASecondTakerFailsAtOnceNamingTheFirst() throws {
        // flock locks belong to an open file description: a second open() in the same
        // process conflicts like another process would.
        let first = try RunLock(destination: destination)
        assertMigrationError(try RunLock(destination: destination),
                             contains: [destination, "another etl run (process \(getpid())) is working on this destination",
                                        "wait for it or stop it"])
        XCTAssertEqual(contents(lockPath), "\(getpid())", "the loser does not touch the holder's file")
        XCTAssertTrue(first.isHeld)
        first.release()
        let second = try RunLock(destination: destination)
        XCTAssertTrue(second.isHeld)
    }

    func testDeinitReleases() throws {
        do {
            let lock = try RunLock(destination: destination)
            XCTAssertTrue(FileManager.default.fileExists(atPath: lock.path))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: lockPath))
        XCTAssertNoThrow(try RunLock(destination: destination))
    }

    func testAStaleLockFileOfADeadRunIsTakenOver() throws {
        try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: lockPath))
        XCTAssertNil(RunLock.holder(ofDestination: destination), "a file nobody locks is no lock")
        let lock = try RunLock(destination: destination)
        XCTAssertEqual(contents(lockPath), "\(getpid())")
        lock.release()
        XCTAssertFalse(FileManager.default.fileExists(atPath: lockPath))
    }

    func testAFolderThatDoesNotExistIsNamed() throws {
        let nowhere = folder.path("missing/v3.sqlite")
        assertMigrationError(try RunLock(destination: nowhere), contains: [nowhere, "the folder \(folder.path("missing")) does not exist: create it first"])
    }

    /// The engine takes the lock: a run refuses a destination another run holds, before
    /// it touches any of its files, and releases the lock when it ends.
    /// Passes once `Engine.run` takes a `RunLock` (see the hardening notes).
    func testARunRefusesADestinationAnotherRunHolds() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: source)
        let lock = try RunLock(destination: destination)
        assertMigrationError(try migrateBooks(source: source, destination: destination),
                             contains: [destination, "another etl run (process \(getpid())) is working on this destination"])
        XCTAssertEqual(try folder.files(), ["v1.sqlite", "v3.sqlite.etl-lock"], "nothing of the destination was touched")
        lock.release()
        try migrateBooks(source: source, destination: destination)
        XCTAssertEqual(try folder.files(), ["v1.sqlite", "v3.sqlite"], "the run released (and removed) its lock")
    }

    /// Another process holds the lock (util-linux `flock` on a shell's descriptor, then
    /// `exec sleep`): refused naming its PID; killed with SIGKILL, the lock is free at
    /// once, with its stale file left behind.
    func testAKilledHolderNeverLeavesTheLockStuck() throws {
        guard let flock = ["/usr/bin/flock", "/bin/flock"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("util-linux flock is not installed; testASecondTakerFailsAtOnceNamingTheFirst covers the conflict in one process")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exec 9>>\"$1\" && \(flock) -n 9 || exit 3; echo $$ >\"$1\"; echo locked; exec sleep 60", "sh", lockPath]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() } }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        XCTAssertEqual(line.trimmingCharacters(in: .whitespacesAndNewlines), "locked")
        let pid = child.processIdentifier

        assertMigrationError(try RunLock(destination: destination), contains: ["another etl run (process \(pid))"])
        XCTAssertEqual(RunLock.holder(ofDestination: destination), pid)

        kill(pid, SIGKILL)
        child.waitUntilExit()
        XCTAssertEqual(contents(lockPath), "\(pid)", "the dead run's file is still there")
        let lock = try RunLock(destination: destination)
        XCTAssertEqual(contents(lockPath), "\(getpid())")
        lock.release()
    }

    /// Threads racing to take and release the lock: never two holders at once, even while
    /// releasing removes the file others have open.
    func testRacingTakersNeverShareTheLock() throws {
        let holders = Counter(), taken = Counter(), overlap = Counter()
        let destination: String = self.destination
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<150 {
                guard let lock = try? RunLock(destination: destination) else { continue }
                if holders.add(1) > 1 { _ = overlap.add(1) }
                _ = taken.add(1)
                usleep(200)
                _ = holders.add(-1)
                lock.release()
            }
        }
        XCTAssertEqual(overlap.value, 0, "two holders at once")
        XCTAssertGreaterThan(taken.value, 10)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lockPath))
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) -> Int { lock.lock(); defer { lock.unlock() }; count += n; return count }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
