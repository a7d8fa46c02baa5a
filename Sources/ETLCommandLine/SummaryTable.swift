import Foundation
import ETL

/// The table printed at the end of a run: one line per mapping and step.
///
/// By default it fits `width` (100) columns: a step is labelled by the stores it goes
/// between, counted from the source (`1 → 2`, a fused step `1 → 3`), its name listed below
/// the table; the source → destination column ("entities") is left out when it does not
/// fit, and a mapping name too long for what is left is cut with "…". `wide` prints every name whole
/// (as `--progress json` does).
enum SummaryTable {
    static let width = 100

    static func render(_ summary: RunSummary, wide: Bool = false) -> String {
        let labels = wide ? [:] : stepLabels(summary.mappings.map(\.step))
        // What changed, per mapping: rows rejected, values made null on purpose (orNull),
        // values dropped with a removed property.
        var header = ["step", "mapping", "source → destination", "read", "filtered", "rejected", "nulled", "dropped", "written", "related", "seconds"]
        var rows = summary.mappings.map { m in
            [labels[m.step] ?? m.step, m.mapping, "\(m.source) → \(m.destination)", "\(m.read)", "\(m.filtered)", "\(m.rejected)", "\(m.nullsOnPurpose)",
             "\(m.dropped)", "\(m.written)", "\(m.related)", String(format: "%.2f", m.seconds)]
        }
        let total = summary.mappings.reduce(into: [Int](repeating: 0, count: 7)) { t, m in
            for (i, n) in [m.read, m.filtered, m.rejected, m.nullsOnPurpose, m.dropped, m.written, m.related].enumerated() { t[i] += n }
        }
        rows.append(["total", "", ""] + total.map(String.init) + [String(format: "%.2f", summary.seconds)])
        func widths() -> [Int] { header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! } }
        func tableWidth() -> Int { widths().reduce(0, +) + 2 * (header.count - 1) }
        if !wide { header[2] = "entities" }
        if !wide && tableWidth() > width {
            header.remove(at: 2)
            for i in rows.indices { rows[i].remove(at: 2) }
        }
        if !wide && tableWidth() > width {
            let room = max(header[1].count, widths()[1] - (tableWidth() - width))
            for i in rows.indices where rows[i][1].count > room { rows[i][1] = String(rows[i][1].prefix(room - 1)) + "…" }
        }
        let columnWidths = widths()
        let numeric = Set((header.count - 8)..<header.count)
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: columnWidths[i] - cell.count)
                return numeric.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        let rule = columnWidths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        var lines = [line(header), rule] + rows.dropLast().map(line) + [rule, line(rows.last!)]
        lines.append("")
        let named = summary.mappings.map(\.step).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for step in named { if let label = labels[step], label != step { lines.append("step \(label): \(step)") } }
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

    /// "1 → 2", "2 → 3", … for the steps named in `steps` (in the order they first appear):
    /// the stores each goes between, the source being 1. A step that ran fused (its name
    /// "A + B", `StepFusion`) goes over as many stores as it has parts.
    static func stepLabels(_ steps: [String]) -> [String: String] {
        var labels: [String: String] = [:]
        var store = 1
        for step in steps where labels[step] == nil {
            let hops = step.components(separatedBy: " + ").count
            labels[step] = "\(store) → \(store + hops)"
            store += hops
        }
        return labels
    }
}
