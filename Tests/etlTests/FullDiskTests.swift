import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// The destination's file system fills up during the run (here: the file size limit of
/// `ulimit -f`, which makes writes fail as a full disk does): a clear error naming the
/// folder and the space, the source intact, and the same command resumes once there is room.
final class FullDiskTests: XCTestCase {
    func testARunThatRunsOutOfSpaceResumesOnceThereIsRoom() throws {
        let folder = try TemporaryFolder.forTest(self, prefix: "etl-full")
        let source = folder.appendingPathComponent("v1.sqlite").path
        try BooksSample.write(rows: 20_000, seed: 3, to: source)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let etl = ToolProcess.executable("etl").path
        let pipeline = repositoryPath("pipelines/books.json")
        let destination = folder.appendingPathComponent("v3.sqlite").path
        let command = "'\(etl)' run '\(pipeline)' --source '\(source)' --destination '\(destination)' --chunk-size 200 --progress none"

        // 1 MiB per file (ulimit -f counts 1024-byte blocks): the new store outgrows it.
        let limited = try shell("ulimit -f 1024; exec \(command)")
        XCTAssertEqual(limited.status, 1, limited.output)
        XCTAssertTrue(limited.output.contains("the disk may be full"), limited.output)
        XCTAssertTrue(limited.output.contains("The folder \(folder.path) has"), limited.output)
        XCTAssertTrue(limited.output.contains("run the same command again to resume"), limited.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertTrue(FileManager.default.fileExists(atPath: destination + ".etl-checkpoint"), "progress is kept")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before)

        // Room again: the same command resumes and finishes.
        let resumed = try shell("exec \(command)")
        XCTAssertEqual(resumed.status, 0, resumed.output)
        XCTAssertTrue(resumed.output.contains("resuming"), resumed.output)
        let reference = folder.appendingPathComponent("reference.sqlite").path
        let straight = try shell("exec '\(etl)' run '\(pipeline)' --source '\(source)' --destination '\(reference)' --progress none")
        XCTAssertEqual(straight.status, 0, straight.output)
        let a = try Database(path: destination, mode: .readOnly), b = try Database(path: reference, mode: .readOnly)
        for table in ["User", "Book", "Author", "File", "Author_books"] {
            let sql = "SELECT * FROM \"\(table)\" ORDER BY 1, 2"
            XCTAssertEqual(try a.rows(sql), try b.rows(sql), table)
        }
    }

    /// Standard output and error together, as a shell user would read them.
    func shell(_ script: String) throws -> (status: Int32, output: String) {
        let run = try ToolProcess.run(["-c", script], program: "/bin/sh")
        return (run.status, run.stdout + run.stderr)
    }
}
