/// A plan as a Mermaid flowchart (`etl plan --mermaid`), for people who would rather look
/// than read: versions as rounded nodes, each hop a box between two of them holding its
/// entity mappings, each marked with how it runs. GitHub, GitLab and most Markdown viewers
/// render it inside a ```` ```mermaid ```` block.
///
///     flowchart LR
///       v0(["books-v1"])
///       subgraph h0["v1 to v2 · explicit · inside SQLite"]
///         h0m0["Users: User → User · inside SQLite"]
///       end
///       v0 --> h0
///       h0 --> v1
public enum PlanDiagram {
    public static func mermaid(_ report: PlanReport) -> String {
        var lines = ["flowchart LR"]
        let versions = [report.sourceVersion] + report.hops.map(\.to)
        for (index, version) in versions.enumerated() {
            let upToDate = report.upToDate ? " · up to date" : ""
            lines.append("  v\(index)([\(label(version + upToDate))])")
        }
        for (h, hop) in report.hops.enumerated() {
            lines.append("  subgraph h\(h)[\(label("\(hop.name) · \(hop.kind) · \(hop.runs)"))]")
            lines.append("    direction TB")
            for (m, mapping) in hop.mappings.enumerated() {
                lines.append("    h\(h)m\(m)[\(label("\(mapping.name): \(mapping.source) → \(mapping.destination) · \(mapping.runs)"))]")
            }
            for (d, drop) in hop.drops.enumerated() {
                let count = drop.count.map { " (\($0) in the source)" } ?? ""
                lines.append("    h\(h)d\(d)[\(label("drops \(drop.kind) \(drop.name)\(count)"))]")
            }
            lines.append("  end")
            lines.append("  v\(h) --> h\(h)")
            lines.append("  h\(h) --> v\(h + 1)")
        }
        return lines.joined(separator: "\n")
    }

    /// A quoted label: Mermaid ends a label at `"`, so quotes are written as its entity.
    static func label(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "#quot;") + "\""
    }
}
