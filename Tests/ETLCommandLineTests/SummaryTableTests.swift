import XCTest
import ETLPipeline
@testable import ETLEngine
@testable import ETLBatch
@testable import ETLCommandLine

/// The tables `etl run` and `etl batch` print at the end.
final class SummaryTableTests: XCTestCase {
    func counters(_ step: String, _ mapping: String, _ source: String, _ destination: String,
                  read: Int, filtered: Int = 0, rejected: Int = 0, written: Int, related: Int = 0, seconds: Double) -> MappingCounters {
        var m = MappingCounters(step: step, mapping: mapping, source: source, destination: destination)
        (m.read, m.filtered, m.rejected, m.written, m.related, m.seconds) = (read, filtered, rejected, written, related, seconds)
        return m
    }

    func testARunsTableHasALinePerMappingAndTheTotals() {
        var summary = RunSummary(source: "/s/books-v1.sqlite", destination: "/d/books-v2.sqlite", backup: "/d/books-v2.sqlite.bak",
                                 resumed: nil, redoneRows: 0,
                                 mappings: [counters("v1 to v2", "Users", "User", "User", read: 40, written: 40, seconds: 0.25),
                                            counters("v1 to v2", "Authors", "Book", "Author", read: 2000, filtered: 12, rejected: 3,
                                                     written: 310, related: 1988, seconds: 1.5)],
                                 seconds: 2)
        summary.notes = ["the store has no Z_MODELCACHE"]
        summary.drops = [DroppedData(step: "v1 to v2", name: "Book.isbn", count: 1, declaredBy: "as the pipeline's \"drop\" says")]
        summary.rejectFile = "/d/books-v2.rejects.jsonl.zst"
        let lines = SummaryTable.render(summary).components(separatedBy: "\n")
        XCTAssertEqual(Array(lines.prefix(6)), [
            "step      mapping  source → destination  read  filtered  rejected  nulled  dropped  written  related  seconds",
            "────────  ───────  ────────────────────  ────  ────────  ────────  ──────  ───────  ───────  ───────  ───────",
            "v1 to v2  Users    User → User             40         0         0       0        0       40        0     0.25",
            "v1 to v2  Authors  Book → Author         2000        12         3       0        0      310     1988     1.50",
            "────────  ───────  ────────────────────  ────  ────────  ────────  ──────  ───────  ───────  ───────  ───────",
            "total                                    2040        12         3       0        0      350     1988     2.00",
        ])
        XCTAssertEqual(Array(lines.dropFirst(6)), [
            "",
            "dropped: step v1 to v2 dropped Book.isbn: 1 non-null value (as the pipeline's \"drop\" says)",
            "note: the store has no Z_MODELCACHE",
            "rejected rows are kept in /d/books-v2.rejects.jsonl.zst (read it with `etl rejects /d/books-v2.rejects.jsonl.zst`)",
            "migrated /s/books-v1.sqlite",
            "      to /d/books-v2.sqlite (previous file kept as /d/books-v2.sqlite.bak)",
        ])
    }

    func testAResumedRunSaysWhereItStartedAndWhatItLoadedAgain() {
        let position = Checkpoint.Position(step: 1, stage: .relate, mapping: MappingID(0), progress: .nothingYet, done: 5, total: 9)
        let summary = RunSummary(source: "a", destination: "b", backup: nil, resumed: position, redoneRows: 1000, mappings: [], seconds: 0)
        XCTAssertTrue(SummaryTable.render(summary).contains(
            "resumed an interrupted run at step 2, relate; 1000 source rows loaded after its last checkpoint were loaded again"))
    }

    func testADryRunListsEachStoresDecisionThenTheCounts() {
        let plans = [BatchStorePlan(store: "a/one.sqlite", decision: .migrate, fromVersion: "v1", toVersion: "v3", hops: 2),
                     BatchStorePlan(store: "two.sqlite", decision: .skip, fromVersion: "v3", toVersion: "v3"),
                     BatchStorePlan(store: "b/three.sqlite", decision: .refuse, reason: "not a database")]
        XCTAssertEqual(BatchPlanTable.render(plans), """
            a/one.sqlite    migrate  v1 → v3 (2 hops)
            two.sqlite      skip     up to date at v3
            b/three.sqlite  refuse   not a database

            dry run, nothing written: 1 to migrate, 1 up to date, 1 refused, of 3 stores
            """)
    }

    /// A rerun's dry run: why a store done before is migrated again, which outcomes stand,
    /// which are stale (--report-stale).
    func testADryRunOfARerunSaysWhyAndWhatItKeeps() {
        let plans = [BatchStorePlan(store: "one.sqlite", decision: .migrate, fromVersion: "v1", toVersion: "v4", hops: 3,
                                    reason: "again: its inputs changed: /m/Books.xcdatamodeld/.xccurrentversion changed"),
                     BatchStorePlan(store: "two.sqlite", decision: .keep, fromVersion: "v1", toVersion: "v3",
                                    reason: "done in an earlier run; what made it is unchanged"),
                     BatchStorePlan(store: "three.sqlite", decision: .stale, fromVersion: "v1", toVersion: "v3",
                                    reason: "its inputs changed: the pipeline up.json was edited")]
        XCTAssertEqual(BatchPlanTable.render(plans), """
            one.sqlite    migrate  v1 → v4 (3 hops), again: its inputs changed: /m/Books.xcdatamodeld/.xccurrentversion changed
            two.sqlite    keep     done in an earlier run; what made it is unchanged
            three.sqlite  stale    its inputs changed: the pipeline up.json was edited (--report-stale: left as it is)

            dry run, nothing written: 1 to migrate, 0 up to date, 0 refused, 1 kept from earlier runs, 1 stale, of 3 stores
            """)
    }
}
