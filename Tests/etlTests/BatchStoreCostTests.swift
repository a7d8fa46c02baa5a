import XCTest
import Foundation
import ETL
import ETLExpression
import ETLBatch
import ETLTestSupport

/// Where a batch's time per store goes: each migrated store's report entry splits its
/// seconds into open, plan, check, copy, validate and rename, and the summary gives the mean.
extension BatchCommandTests {
    func testEachMigratedStoreSaysWhereItsTimeWent() throws {
        // Given a few stores of the archive (of older versions, or up to date) and a broken one…
        let chosen: Set<String> = ["2019/user-00.sqlite", "2019/user-01.sqlite", "2020/user-31.sqlite", "broken/notes.sqlite"]
        let archive = try makeArchive { chosen.contains($0) }
        let run = try etl(["batch", "upgrade.json", "--stores", "archive/**/*.sqlite", "--out", "out", "--report", "report.json"])
        let report = try BatchReport.read(path: path("report.json"))
        let done = report.stores.filter { $0.status == .done }
        XCTAssertFalse(done.isEmpty, run.stdout + run.stderr)
        XCTAssertEqual(report.count(.failed), 1)
        for entry in report.stores {
            guard entry.status == .done else {
                // …only the stores migrated have a cost.
                XCTAssertNil(entry.cost, "\(entry.path) (\(entry.status))")
                continue
            }
            let cost = try XCTUnwrap(entry.cost, entry.path)
            // Every part was gone through, and the parts follow one another within the store's time.
            for (name, seconds) in [("open", cost.open), ("plan", cost.plan), ("check", cost.check), ("copy", cost.copy),
                                    ("validate", cost.validate), ("rename", cost.rename)] {
                XCTAssertGreaterThan(seconds, 0, "\(entry.path): \(name)")
            }
            XCTAssertLessThanOrEqual(cost.total, entry.seconds, entry.path)
            XCTAssertNotEqual(archive.versions[entry.path], "books-v3", entry.path)
        }
        // The terminal summary gives the mean per store migrated, part by part.
        XCTAssertTrue(run.stdout.contains("per store migrated (mean of \(done.count)): open "), run.stdout)
        for part in ["plan", "check", "copy", "validate", "rename"] { XCTAssertTrue(run.stdout.contains(", \(part) "), run.stdout) }
    }

    func testACostRecordedBeforeOpenWasMeasuredStillReads() throws {
        // Given a manifest entry's cost from a version without "open" (its plan held it)…
        let json = #"{"plan": 0.004, "check": 0.006, "copy": 0.011, "validate": 0.003, "rename": 0.005}"#
        let cost = try JSONDecoder().decode(BatchStoreCost.self, from: Data(json.utf8))
        // …it reads, with no open part, and its parts add up as before.
        XCTAssertEqual(cost.open, 0)
        XCTAssertEqual(cost.plan, 0.004)
        XCTAssertEqual(cost.total, 0.029, accuracy: 1e-9)
        // A cost missing another part is still refused.
        XCTAssertThrowsError(try JSONDecoder().decode(BatchStoreCost.self, from: Data(#"{"plan": 1}"#.utf8)))
    }
}
