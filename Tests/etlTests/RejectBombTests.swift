import XCTest
import Foundation
import ETLTestSupport
import ETL
import ETLExpression

/// `etl rejects` on a crafted file: under 200 KB of zstd frames that decompress to 1 GiB without
/// a line break. Under a 300 MB address-space limit it ends in a clear error about the
/// overlong line: it never holds the file's content whole. (A real reject file printed:
/// `CommandLineTests`.)
final class RejectBombTests: XCTestCase {
    func testAZstdBombIsReadWithinAMemoryBound() throws {
        let folder = try TemporaryFolder.forTest(self, prefix: "etl-bomb")
        let frame = try Zstd.compress([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20))
        var bomb = Data()
        for _ in 0..<1024 { bomb.append(contentsOf: frame) }
        XCTAssertLessThan(bomb.count, 200_000)
        let path = folder.appendingPathComponent("bomb.rejects.jsonl.zst").path
        try bomb.write(to: URL(fileURLWithPath: path))

        let run = try ToolProcess.run(["-c", "ulimit -v 300000; exec \"$0\" rejects \"$1\"", ToolProcess.executable("etl").path, path],
                                      program: "/bin/sh")
        let stderr = run.stderr
        XCTAssertEqual(run.status, 1, stderr)  // exit code 1, not a signal (SIGSEGV would give 11)
        XCTAssertTrue(stderr.contains("\(path): the reject file is damaged or not one (line 1: zstd: a line longer than 16777216 bytes)"), stderr)
    }
}
