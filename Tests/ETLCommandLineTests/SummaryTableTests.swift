import XCTest
import ETLPipeline
import ETLExpression
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
        let lines = SummaryTable.render(summary, wide: true).components(separatedBy: "\n")
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

    /// Core Data's names (a bundle's versions, mapping models' "XToY" mappings) made rows of
    /// 130 columns: by default the table fits 100, each step labelled by the stores it goes
    /// between and named in full below it; `--wide` prints the names whole.
    func testTheTableFitsAHundredColumnsAndNamesTheStepsBelowIt() {
        let first = "CoreDataMigration_Example to CoreDataMigration_Example 2"
        let fused = "CoreDataMigration_Example 2 to CoreDataMigration_Example 3 + CoreDataMigration_Example 3 to CoreDataMigration_Example 4"
        let summary = RunSummary(source: "/s/a.sqlite", destination: "/d/b.sqlite", backup: nil, resumed: nil, redoneRows: 0,
                                 mappings: [counters(first, "AttachmentToAttachment", "Attachment", "Attachment", read: 1_250_000, written: 1_250_000, seconds: 12.5),
                                            counters(first, "NoteToNote", "Note", "Note", read: 40, written: 40, seconds: 0.25),
                                            counters(fused, "BasicEntityToBasicEntityWithALongName", "BasicEntity", "BasicEntityWithALongName",
                                                     read: 3, rejected: 1, written: 2, seconds: 0.1)],
                                 seconds: 13)
        let lines = SummaryTable.render(summary).components(separatedBy: "\n")
        let namesBelow = lines.filter { $0.hasPrefix("step ") && $0.dropFirst(5).first?.isNumber == true }
        XCTAssertEqual(namesBelow.count, 2)
        for line in lines where !namesBelow.contains(line) && !line.hasPrefix("migrated") && !line.hasPrefix("      to") {
            XCTAssertLessThanOrEqual(line.count, 100, line)
        }
        XCTAssertTrue(lines[0].hasPrefix("step   mapping"), lines[0])
        XCTAssertTrue(lines[2].hasPrefix("1 → 2  AttachmentToAttachm…  1250000"), lines[2])
        XCTAssertTrue(lines[4].hasPrefix("2 → 4  BasicEntityToBasicE…        3"), lines[4])
        XCTAssertTrue(lines.contains("step 1 → 2: \(first)"), lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("step 2 → 4: \(fused)"), lines.joined(separator: "\n"))
        XCTAssertEqual(lines[2].components(separatedBy: " 1250000 ").count, 3, "read and written, whatever is cut")

        let wide = SummaryTable.render(summary, wide: true).components(separatedBy: "\n")
        XCTAssertTrue(wide[2].hasPrefix(first + "  "), wide[2])
        XCTAssertTrue(wide[4].contains("BasicEntityToBasicEntityWithALongName  BasicEntity → BasicEntityWithALongName"), wide[4])
        XCTAssertFalse(wide.contains { $0.hasPrefix("step 1 → 2") })
    }

    /// A table that fits keeps the source → destination column, and whole names.
    func testANarrowTableKeepsEveryColumn() {
        let summary = RunSummary(source: "a", destination: "b", backup: nil, resumed: nil, redoneRows: 0,
                                 mappings: [counters("v1 to v2", "Users", "User", "User", read: 40, written: 40, seconds: 0.25)], seconds: 1)
        let lines = SummaryTable.render(summary).components(separatedBy: "\n")
        XCTAssertEqual(lines[0], "step   mapping  entities     read  filtered  rejected  nulled  dropped  written  related  seconds")
        XCTAssertEqual(lines[2], "1 → 2  Users    User → User    40         0         0       0        0       40        0     0.25")
        XCTAssertTrue(lines.contains("step 1 → 2: v1 to v2"))
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
