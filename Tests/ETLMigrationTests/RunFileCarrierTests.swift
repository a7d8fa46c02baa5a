import Foundation
import XCTest
import ETLEngine
import ETL

/// A batch job's run lock carried from store to store (`RunLock.move`, `RunFileCarrier`):
/// one file, renamed, where a lock file per store was made and removed; every run still
/// holds its destination's lock file while it works.
final class RunFileCarrierTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    private func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    private func links(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_nlink) : 0
    }

    func testAMovedLockIsTheSameFileHeldUnderTheNewName() throws {
        let (first, second) = (folder.path("a.sqlite"), folder.path("b.sqlite"))
        let lock = try RunLock(destination: first)
        let file = try XCTUnwrap(inode(lock.path))
        XCTAssertTrue(lock.move(to: RunLock.path(forDestination: second), destination: second))
        XCTAssertEqual(lock.path, RunLock.path(forDestination: second))
        XCTAssertEqual(lock.destination, second)
        XCTAssertNil(inode(RunLock.path(forDestination: first)), "the old name is gone")
        XCTAssertEqual(inode(lock.path), file, "the same file, not a new one")
        XCTAssertEqual(links(lock.path), 1)
        XCTAssertEqual(RunLock.holder(ofDestination: second), getpid())
        assertMigrationError(try RunLock(destination: second), contains: [second, "another etl run (process \(getpid()))"])
        // The first destination is free again.
        try RunLock(destination: first).release()
        lock.release()
        XCTAssertEqual(try folder.files(), [])
    }

    func testAMoveNeverReplacesAFileThere() throws {
        let (first, second) = (folder.path("a.sqlite"), folder.path("b.sqlite"))
        try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: RunLock.path(forDestination: second)))
        let lock = try RunLock(destination: first)
        XCTAssertFalse(lock.move(to: RunLock.path(forDestination: second), destination: second))
        XCTAssertEqual(lock.path, RunLock.path(forDestination: first), "still held where it was")
        XCTAssertEqual(RunLock.holder(ofDestination: first), getpid())
        XCTAssertEqual(try String(contentsOfFile: RunLock.path(forDestination: second), encoding: .utf8), "99999999\n", "the file there is untouched")
        lock.release()
    }

    func testACarrierParksBetweenRunsAndTakesTheSameFileForTheNext() throws {
        let parking = folder.path(".batch.lock.job1")
        let carrier = RunFileCarrier(parking: parking)
        let (first, second) = (folder.path("a.sqlite"), folder.path("b.sqlite"))
        let lock = try carrier.take(destination: first)
        let file = try XCTUnwrap(inode(lock.path))
        carrier.park(lock)
        XCTAssertEqual(try folder.files(), [".batch.lock.job1"], "between two runs only the parked file")
        XCTAssertNil(RunLock.holder(ofDestination: first), "the finished run's destination is free")
        let next = try carrier.take(destination: second)
        XCTAssertEqual(inode(RunLock.path(forDestination: second)), file, "the next run holds the same file")
        XCTAssertEqual(RunLock.holder(ofDestination: second), getpid())
        XCTAssertEqual(try folder.files(), ["b.sqlite.etl-lock"])
        carrier.park(next)
        carrier.release()
        XCTAssertEqual(try folder.files(), [], "released at the job's end")
    }

    /// A destination whose lock file is there (another run holds it) is refused as before;
    /// the parked lock waits for the next one.
    func testADestinationAnotherRunHoldsIsRefusedAndTheParkedLockKept() throws {
        let carrier = RunFileCarrier(parking: folder.path(".batch.lock.job1"))
        let (first, held, third) = (folder.path("a.sqlite"), folder.path("b.sqlite"), folder.path("c.sqlite"))
        carrier.park(try carrier.take(destination: first))
        let parked = try XCTUnwrap(inode(folder.path(".batch.lock.job1")))
        let other = try RunLock(destination: held)
        assertMigrationError(try carrier.take(destination: held), contains: [held, "another etl run (process \(getpid()))"])
        XCTAssertEqual(inode(folder.path(".batch.lock.job1")), parked)
        XCTAssertTrue(other.isHeld)
        let lock = try carrier.take(destination: third)
        XCTAssertEqual(inode(lock.path), parked)
        carrier.park(lock)
        other.release()
        carrier.release()
        XCTAssertEqual(try folder.files(), [])
    }

    /// A finished run's work database waits under the job's name and becomes the next run's
    /// (the same file), only where nothing is there; one of two names is never taken.
    func testAParkedWorkDatabaseIsPlacedOnlyWhereNoFileIs() throws {
        let carrier = RunFileCarrier(parking: folder.path(".batch.lock.job1"))
        let (first, second, third) = (folder.path("a.sqlite.etl-work"), folder.path("b.sqlite.etl-work"), folder.path("c.sqlite.etl-work"))
        try Data("first".utf8).write(to: URL(fileURLWithPath: first))
        carrier.placeWork(at: second)
        XCTAssertNil(inode(second), "nothing parked yet: nothing placed")
        carrier.parkWork(from: first)
        XCTAssertEqual(try folder.files(), [".batch.lock.job1.work"])
        // A file there already is kept, and the parked one removed.
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: second))
        carrier.placeWork(at: second)
        XCTAssertEqual(try String(contentsOfFile: second, encoding: .utf8), "theirs")
        XCTAssertEqual(try folder.files(), ["b.sqlite.etl-work"])
        // Parked again, then placed where nothing is: the same file.
        unlink(second)
        try Data("first".utf8).write(to: URL(fileURLWithPath: first))
        let again = try XCTUnwrap(inode(first))
        carrier.parkWork(from: first)
        carrier.placeWork(at: third)
        XCTAssertEqual(inode(third), again)
        // A file of two names (a link someone made) stays where it is.
        XCTAssertEqual(link(third, folder.path("elsewhere")), 0)
        carrier.parkWork(from: third)
        XCTAssertEqual(try folder.files(), ["c.sqlite.etl-work", "elsewhere"])
        carrier.release()
        XCTAssertEqual(try folder.files(), ["c.sqlite.etl-work", "elsewhere"], "release removes only what is parked")
    }

    func testReleaseRemovesTheParkedWorkDatabase() throws {
        let carrier = RunFileCarrier(parking: folder.path(".batch.lock.job1"))
        try Data("work".utf8).write(to: URL(fileURLWithPath: folder.path("a.sqlite.etl-work")))
        carrier.parkWork(from: folder.path("a.sqlite.etl-work"))
        XCTAssertEqual(try folder.files(), [".batch.lock.job1.work"])
        carrier.release()
        XCTAssertEqual(try folder.files(), [])
    }

    func testStaleParkingFilesOfAKilledBatchAreRemoved() throws {
        for name in [".m.lock.job1", ".m.lock.job1.work", ".m.lock.job2", "a.sqlite"] {
            try Data("99999999\n".utf8).write(to: URL(fileURLWithPath: folder.path(name)))
        }
        RunFileCarrier.removeStale(prefix: folder.path(".m.lock.job"))
        XCTAssertEqual(try folder.files(), ["a.sqlite"])
    }
}
