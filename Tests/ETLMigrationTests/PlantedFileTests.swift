import Foundation
import XCTest
import ETLStore
import ETLEngine
import ETLExpression
import ETL

/// The destination's folder is shared with someone hostile, who plants things under the
/// names of the files a run makes: symbolic links to a file elsewhere, a hard link, a
/// FIFO, a device, a folder. Given any of them, a run refuses it or replaces the link
/// itself — and the file elsewhere keeps every byte. A FIFO as source is refused at once.
final class PlantedFileTests: XCTestCase {
    var folder: TemporaryFolder!
    /// A folder other than the destination's, with the file the links point at.
    var elsewhere: TemporaryFolder!
    var victim: String!
    let secret = Data("not etl's to write\n".utf8)
    var source: String!
    var destination: String!

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        elsewhere = try TemporaryFolder()
        victim = elsewhere.path("victim")
        try secret.write(to: URL(fileURLWithPath: victim))
        source = folder.path("v1.sqlite")
        destination = folder.path("v3.sqlite")
        try BooksSample.write(rows: 300, seed: 5, to: source)
    }

    override func tearDown() {
        folder = nil
        elsewhere = nil
    }

    func plantLink(_ name: String) throws {
        try FileManager.default.createSymbolicLink(atPath: folder.path(name), withDestinationPath: victim)
    }

    func assertVictimUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victim)), secret, "the file outside the folder was written", file: file, line: line)
        XCTAssertEqual(try elsewhere.files(), ["victim"], file: file, line: line)
    }

    func migrate(replace: ReplacePolicy = .refuse) throws -> RunSummary {
        try migrateBooks(source: source, destination: destination, chunkSize: 50, replace: replace)
    }

    func testALinkPlantedAsTheLockIsRefused() throws {
        try plantLink("v3.sqlite.etl-lock")
        assertMigrationError(try migrate(), contains: [destination, "v3.sqlite.etl-lock is a symbolic link"])
        try assertVictimUntouched()
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    func testAHardLinkOrAFIFOPlantedAsTheLockIsRefused() throws {
        XCTAssertEqual(link(victim, folder.path("v3.sqlite.etl-lock")), 0)
        assertMigrationError(try migrate(), contains: ["v3.sqlite.etl-lock has 2 hard links"])
        try assertVictimUntouched()
        unlink(folder.path("v3.sqlite.etl-lock"))
        XCTAssertEqual(mkfifo(folder.path("v3.sqlite.etl-lock"), 0o644), 0)
        assertMigrationError(try migrate(), contains: ["v3.sqlite.etl-lock is a FIFO"])
    }

    func testALinkPlantedAsTheCheckpointIsRefused() throws {
        try plantLink("v3.sqlite.etl-checkpoint")
        assertMigrationError(try migrate(), contains: ["checkpoint", "v3.sqlite.etl-checkpoint is a symbolic link"])
        try assertVictimUntouched()
    }

    /// The temporary checkpoint is made afresh: the planted link is removed, not written through.
    func testALinkPlantedAsTheTemporaryCheckpointIsReplacedNotFollowed() throws {
        try plantLink("v3.sqlite.etl-checkpoint.tmp")
        XCTAssertNil(try migrate().resumed)
        try assertVictimUntouched()
        XCTAssertEqual(try folder.files(), ["v1.sqlite", "v3.sqlite"])
    }

    /// A folder made where the temporary checkpoint goes stops the run after a committed
    /// chunk; once it is gone, the same command resumes to the same store.
    func testAFolderAtTheTemporaryCheckpointStopsTheRunAndARerunResumes() throws {
        let reference = folder.path("reference.sqlite")
        try migrateBooks(source: source, destination: reference, chunkSize: 50)
        try FileManager.default.createDirectory(atPath: destination + ".etl-checkpoint.tmp", withIntermediateDirectories: false)
        let migration = booksMigration(source: source, destination: destination, chunkSize: 50)
        var madeCheckpoints = 0
        // The folder appears once a few chunks were checkpointed, as in the attack.
        try FileManager.default.removeItem(atPath: destination + ".etl-checkpoint.tmp")
        assertMigrationError(try migration.run { event in
            guard event.kind == .advanced, event.stage == .create else { return }
            madeCheckpoints += 1
            if madeCheckpoints == 2 { try? FileManager.default.createDirectory(atPath: self.destination + ".etl-checkpoint.tmp", withIntermediateDirectories: false) }
        }, contains: ["v3.sqlite.etl-checkpoint.tmp", "is a folder"])
        try FileManager.default.removeItem(atPath: destination + ".etl-checkpoint.tmp")
        XCTAssertNotNil(try migration.run().resumed)
        try assertSameStore(destination, reference)
    }

    /// The reject file is written beside the destination and renamed into place: a link
    /// planted under its name is replaced, never written through.
    func testALinkPlantedAsTheRejectFileIsReplacedNotFollowed() throws {
        let pipeline = try folder.booksStepPipeline("picky.json", options: #""maxRejects": 1000"#, stepName: "picky", mappings: """
            { "name": "Users", "source": "User", "destination": "User",
              "attributes": { "userId": "$source.userId", "name": "$source.name" } },
            { "name": "Books", "source": "Book", "destination": "Book", "policy": "picky",
              "attributes": { "title": "$source.title" } }
            """)
        try plantLink("v3.sqlite.rejects.jsonl.zst")
        let picky = Policy(create: { row, _ in
            if row.key % 7 == 0 { throw PickyRefusal() }
        })
        var migration = Migration(pipeline: pipeline, policies: ["picky": picky])
        migration.source = source
        migration.destination = destination
        let summary = try migration.run()
        XCTAssertEqual(summary.rejectFile, destination + ".rejects.jsonl.zst")
        XCTAssertFalse(OwnFile.isSymbolicLink(destination + ".rejects.jsonl.zst"))
        XCTAssertEqual(try RejectFile.read(destination + ".rejects.jsonl.zst").count, 300 / 7)
        try assertVictimUntouched()
    }

    /// Before the lock is made beside it: nothing is created in the folder.
    func testAFIFOOrADeviceAsDestinationIsRefusedEvenWithForce() throws {
        XCTAssertEqual(mkfifo(destination, 0o644), 0)
        for replace in [ReplacePolicy.force, .backup] {
            assertMigrationError(try migrate(replace: replace), contains: [destination, "is a FIFO (named pipe)", "only regular files"])
        }
        XCTAssertEqual(OwnFile.kind(at: destination), "a FIFO (named pipe)")
        XCTAssertEqual(try folder.files(), ["v1.sqlite", "v3.sqlite"])
        unlink(destination)
        // A device node (root only: elsewhere mknod is refused and this part is skipped).
        guard mknod(destination, S_IFCHR | 0o666, dev_t((1 << 8) | 3)  /* major 1, minor 3: /dev/null */) == 0 else { return }
        assertMigrationError(try migrate(replace: .force), contains: [destination, "is a character device"])
        XCTAssertEqual(OwnFile.kind(at: destination), "a character device")
        XCTAssertEqual(try folder.files(), ["v1.sqlite", "v3.sqlite"])
    }

    /// SQLite would wait forever for a writer: refused at once, by run and by inspect.
    func testAFIFOAsSourceIsRefusedAtOnce() throws {
        let fifo = folder.path("pipe.sqlite")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        assertMigrationError(try migrateBooks(source: fifo, destination: destination), contains: [fifo, "is a FIFO (named pipe), not a store file"])
        assertMigrationError(try StoreInspection.inspect(path: fifo), contains: [fifo, "is a FIFO"])
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
        assertMigrationError(try migrateBooks(source: link, destination: destination), contains: [link, "is a FIFO"])
    }
}

struct PickyRefusal: Error {}
