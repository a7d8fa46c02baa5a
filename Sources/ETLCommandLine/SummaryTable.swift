import Foundation
import ETL

/// The table printed at the end of a run: one line per mapping and step.
enum SummaryTable {
    static func render(_ summary: RunSummary) -> String {
        // What changed, per mapping: rows rejected, values made null on purpose (orNull),
        // values dropped with a removed property.
        let header = ["step", "mapping", "source → destination", "read", "filtered", "rejected", "nulled", "dropped", "written", "related", "seconds"]
        var rows = summary.mappings.map { m in
            [m.step, m.mapping, "\(m.source) → \(m.destination)", "\(m.read)", "\(m.filtered)", "\(m.rejected)", "\(m.nullsOnPurpose)",
             "\(m.dropped)", "\(m.written)", "\(m.related)", String(format: "%.2f", m.seconds)]
        }
        let total = summary.mappings.reduce(into: [Int](repeating: 0, count: 7)) { t, m in
            for (i, n) in [m.read, m.filtered, m.rejected, m.nullsOnPurpose, m.dropped, m.written, m.related].enumerated() { t[i] += n }
        }
        rows.append(["total", "", ""] + total.map(String.init) + [String(format: "%.2f", summary.seconds)])
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
        let numeric = Set(3...10)
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return numeric.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        var lines = [line(header), rule] + rows.dropLast().map(line) + [rule, line(rows.last!)]
        lines.append("")
        if let resumed = summary.resumed {
            lines.append("resumed an interrupted run at step \(resumed.step + 1), \(resumed.stage.rawValue); "
                         + "\(summary.redoneRows) source rows loaded after its last checkpoint were loaded again")
        }
        for drop in summary.drops { lines.append("dropped: " + drop.described) }
        for note in summary.notes { lines.append("note: " + note) }
        if let file = summary.rejectFile {
            lines.append("rejected rows are kept in \(file) (read it with `etl rejects \(file)`)")
        }
        lines.append("migrated \(summary.source)")
        lines.append("      to \(summary.destination)" + (summary.backup.map { " (previous file kept as \($0))" } ?? ""))
        return lines.joined(separator: "\n")
    }
}
