import Foundation
import ETL
import ETLBatch

/// What `etl batch` prints at the end: the stores by outcome, rows and time, the slowest
/// stores, and every failure with its reason.
enum BatchSummaryTable {
    static func render(_ report: BatchReport) -> String {
        let header = ["stores", "done", "skipped", "failed", "interrupted", "pending", "rows", "seconds"]
        let values = ["\(report.stores.count)", "\(report.count(.done))", "\(report.count(.skipped))", "\(report.count(.failed))",
                      "\(report.count(.interrupted))", "\(report.count(.pending))", "\(report.rows)", String(format: "%.2f", report.seconds)]
        let widths = header.indices.map { max(header[$0].count, values[$0].count) }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in String(repeating: " ", count: widths[i] - cell.count) + cell }.joined(separator: "  ")
        }
        var lines = [line(header), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "), line(values), ""]
        let (cost, migrated) = report.costOfDoneStores
        if migrated > 0 {
            // Milliseconds per store, part by part: what a batch of small stores pays around its rows.
            let parts = [("open", cost.open), ("plan", cost.plan), ("check", cost.check), ("copy", cost.copy), ("validate", cost.validate), ("rename", cost.rename)]
            lines.append("per store migrated (mean of \(migrated)): " + parts.map { name, seconds in
                String(format: "%@ %.1f ms", name, seconds / Double(migrated) * 1000)
            }.joined(separator: ", "))
        }
        let earlier = report.finishedEarlier
        if earlier > 0 {
            lines.append("\(earlier) of these outcomes were recorded by an earlier run of this batch (in \(report.manifest))")
        }

        let slowest = report.slowest(5)
        if !slowest.isEmpty {
            lines.append("slowest stores:")
            let width = slowest.map(\.path.count).max() ?? 0
            for store in slowest {
                var what = store.fromVersion.map { ["\($0) → \(store.toVersion ?? "?")"] } ?? []
                what.append(store.status == .done ? "\(store.totalRows) rows" : store.status.rawValue)
                lines.append("  " + store.path.padding(toLength: width, withPad: " ", startingAt: 0)
                             + "  " + String(format: "%8.2f s", store.seconds) + "  " + what.joined(separator: ", "))
            }
            lines.append("")
        }

        let failures = report.failures
        if !failures.isEmpty {
            lines.append("failed stores (\(failures.count)):")
            for store in failures {
                let reason = (store.error ?? "unknown error").replacingOccurrences(of: "\n", with: "\n      ")
                lines.append("  \(store.path): \(reason)")
            }
            lines.append("")
        }
        let stale = report.stores.filter { $0.stale != nil }
        if !stale.isEmpty {
            lines.append("stale stores (\(stale.count), --report-stale: left as they are; run without it to migrate them again):")
            for store in stale { lines.append("  \(store.path): " + (store.stale ?? []).joined(separator: "; ")) }
            lines.append("")
        }
        let redone = report.stores.filter { $0.notes.contains { $0.hasPrefix("migrated again: ") } }
        if !redone.isEmpty {
            lines.append("migrated again (\(redone.count)):")
            for store in redone.prefix(10) {
                lines.append("  \(store.path): " + (store.notes.first { $0.hasPrefix("migrated again: ") }?.dropFirst("migrated again: ".count) ?? ""))
            }
            if redone.count > 10 { lines.append("  … (\(redone.count - 10) more in the report)") }
            lines.append("")
        }
        let stopped = report.stores.filter { $0.status == .interrupted }
        if !stopped.isEmpty {
            lines.append("interrupted (resumed by the next run): " + stopped.map(\.path).joined(separator: ", "))
        }
        switch report.output {
        case "in place":
            lines.append("stores replaced in place; originals kept" + (report.stores.first { $0.backup != nil }?.backup.map { " (e.g. \($0))" } ?? ""))
        default:
            lines.append("results in \(report.output.dropFirst("out ".count))")
        }
        return lines.joined(separator: "\n")
    }
}
