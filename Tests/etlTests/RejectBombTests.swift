import XCTest
import Foundation
import ETL

/// `etl rejects` on a crafted file: under 200 KB of zstd frames that decompress to 1 GiB without
/// a line break. Under a 300 MB address-space limit it ends in a clear error about the
/// overlong line: it never holds the file's content whole. (A real reject file printed:
/// `CommandLineTests`.)
final class RejectBombTests: XCTestCase {
    func testAZstdBombIsReadWithinAMemoryBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("etl-bomb-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let frame = try Zstd.compress([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20))
        var bomb = Data()
        for _ in 0..<1024 { bomb.append(contentsOf: frame) }
        XCTAssertLessThan(bomb.count, 200_000)
        let path = folder.appendingPathComponent("bomb.rejects.jsonl.zst").path
        try bomb.write(to: URL(fileURLWithPath: path))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -v 300000; exec \"$0\" rejects \"$1\"", KillResumeTests.executable.path, path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, stderr)
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("\(path): the reject file is damaged or not one (line 1: zstd: a line longer than 16777216 bytes)"), stderr)
    }
}
