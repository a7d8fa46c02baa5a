import XCTest
import Foundation
import ETL
import ETLExpression
import ETLBatch

extension BatchCommandTests {
    /// Given an archive of two books stores, one named with a byte that is not UTF-8
    /// (`caf\xE9.sqlite`, Latin-1), when `etl batch` runs over it, then the other store is
    /// migrated and the one it cannot name is reported, by its bytes, in the report and on
    /// stderr, with exit code 3: neither migrated nor reported was what happened before.
    func testAStoreNamedWithNonUTF8BytesIsReported() throws {
        try FileManager.default.createDirectory(atPath: path("archive"), withIntermediateDirectories: true)
        try Self.writePipeline(to: path("upgrade.json"))
        try BooksSample.write(rows: 20, seed: 1, to: path("archive/a.sqlite"), layout: .coredata)
        try BooksSample.write(rows: 20, seed: 2, to: path("latin.sqlite"), layout: .coredata)
        let name = Array(path("archive/caf").utf8) + [0xE9] + Array(".sqlite".utf8)
        XCTAssertEqual(rename(path("latin.sqlite"), name.map { CChar(bitPattern: $0) } + [0]), 0, "rename: errno \(errno)")

        let run = try etl(["batch", "upgrade.json", "--stores", "archive", "--out", "out", "--report", "report.json"])
        XCTAssertEqual(run.status, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains(#"could not be migrated: its name is not UTF-8 (caf\xE9.sqlite)"#), run.stderr)
        let report = try BatchReport.read(path: path("report.json"))
        XCTAssertEqual(report.stores.map(\.path), ["a.sqlite"])
        XCTAssertEqual(report.stores.map(\.status), [.done])
        XCTAssertEqual(report.unnamed, [#"caf\xE9.sqlite"#])
        XCTAssertFalse(report.succeeded)
    }
}
