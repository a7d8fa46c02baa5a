import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// `etl batch` in an archive or output folder shared with someone hostile: a symbolic link
/// planted as the manifest, or as a store's lock, is refused — the file it points at, in
/// another folder, keeps every byte.
final class BatchPlantedFileTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }
    var victim: String!
    let secret = Data("not etl's to write\n".utf8)

    override func setUpWithError() throws {
        temporary = try TemporaryFolder(prefix: "etl-planted")
        for sub in ["archive", "out", "elsewhere"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        victim = path("elsewhere/victim")
        try secret.write(to: URL(fileURLWithPath: victim))
        try BooksSample.write(rows: 200, seed: 1, to: path("archive/a.sqlite"))
        try BooksSample.write(rows: 200, seed: 2, to: path("archive/b.sqlite"))
    }

    override func tearDown() { temporary = nil }

    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

    func batch(_ options: [String]) throws -> BatchCommandTests.Outcome {
        // The manifest in the test's folder (by default it goes beside the pipeline, in the repository).
        try BatchCommandTests.etl(["batch", KillResumeTests.pipeline, "--stores", "archive", "--progress", "none"]
                                  + (options.contains("--in-place") ? ["--manifest", path("manifest.jsonl.zst")] : []) + options, in: folder)
    }

    func assertVictimUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victim)), secret, "the file outside was written", file: file, line: line)
    }

    func testALinkPlantedAsTheManifestIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: path("out/.etl-batch-manifest.jsonl.zst"), withDestinationPath: victim)
        let outcome = try batch(["--out", "out"])
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(".etl-batch-manifest.jsonl.zst is a symbolic link"), outcome.stderr)
        try assertVictimUntouched()
    }

    func testALinkPlantedAsAStoresLockInPlaceFailsThatStoreOnly() throws {
        try FileManager.default.createSymbolicLink(atPath: path("archive/a.sqlite.etl-lock"), withDestinationPath: victim)
        let before = try Data(contentsOf: URL(fileURLWithPath: path("archive/a.sqlite")))
        let outcome = try batch(["--in-place"])
        XCTAssertEqual(outcome.status, 3, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("a.sqlite.etl-lock is a symbolic link"), outcome.stdout)
        try assertVictimUntouched()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("archive/a.sqlite"))), before, "the store was left as it was")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("archive/b.sqlite.bak")), "the other store was migrated")
    }
}
