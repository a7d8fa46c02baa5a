import ArgumentParser
import Foundation
import ETL

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what a run of a pipeline will do, without writing anything.",
        discussion: """
            The hops from the source's version to the target, each explicit (a step of the \
            pipeline) or inferred (lightweight, from a model bundle); every entity mapping, \
            inside SQLite or row by row, and why; what an inferred hop drops. When the source \
            store exists it is read (never written): its layout is checked and its version \
            detected as `etl run` does, so the plan holds only the hops it needs, and what a \
            hop drops is counted in it (rows, non-null values, links).

            The decisions are the run's own (the planner and the push-down planner), with one \
            left to the run: a uniqueBy mapping with a null key among its rows is made row by row.

            Examples:
              etl plan pipelines/books.json
              etl plan pipelines/books-coredata.json --source archive/a.sqlite --json
              etl plan pipelines/books.json --mermaid > plan.mmd

            With a source store, everything `etl run` would refuse before reading a row is refused \
            here too, with the same message and exit code (data a step leaves unread that no \
            "drop" names, tables no entity owns, a missing table or column, a store SQLite's quick \
            check finds damaged).

            Exit codes: 0 planned (or up to date); 1 the source cannot be read as a store of the \
            pipeline, or the run would refuse it; 2 bad usage or a bad pipeline or model file.
            """)

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Option(help: "Source store; overrides the pipeline's source.store, as for run.")
    var source: String?

    @Flag(help: "Print the plan as one JSON object.")
    var json = false

    @Flag(help: "Print the plan as a Mermaid flowchart: versions → hops → entity mappings.")
    var mermaid = false

    func validate() throws {
        if json && mermaid { throw ValidationError("--json and --mermaid exclude each other: choose one") }
    }

    func run() throws {
        var migration = Migration(pipeline: pipeline)
        migration.policies = ProgramPolicies.shared.registry
        migration.source = source
        let report = try PlanReport.make(migration)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else if mermaid {
            print(PlanDiagram.mermaid(report))
        } else {
            print(Self.text(report))
        }
    }

    /// A hop's mappings, one line each, their names in one column.
    static func mappingLines(_ hop: PlanReport.Hop) -> [String] {
        let width = hop.mappings.map { "\($0.name) (\($0.source) → \($0.destination))".count }.max() ?? 0
        return hop.mappings.map { m in
            let name = "\(m.name) (\(m.source) → \(m.destination))"
            return "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(m.runs): \(m.why)"
        }
    }

    static func text(_ report: PlanReport) -> String {
        var lines: [String] = []
        let source = report.source.map { "\($0) (read: version \(report.sourceVersion))" } ?? "not read (version \(report.sourceVersion) from the pipeline)"
        lines.append("source   \(source)")
        if report.upToDate {
            lines.append("already at the target version \(report.targetVersion): a run writes nothing")
            return lines.joined(separator: "\n")
        }
        lines.append("target   \(report.targetVersion), in \(report.hops.count) hop\(report.hops.count == 1 ? "" : "s")")
        for (index, hop) in report.hops.enumerated() {
            lines.append("")
            lines.append("hop \(index + 1): \(hop.from) → \(hop.to)  \(hop.name)  [\(hop.kind)]  runs \(hop.runs)" + (hop.reason.map { ": \($0)" } ?? ""))
            for file in hop.mappingModels { lines.append("  mapping model \(file)") }
            lines += mappingLines(hop)
            for drop in hop.drops {
                let uncounted = report.source != nil && index > 0 ? " (not counted: this hop reads the store the hop before it writes)" : ""
                let count = drop.count.map { n in
                    drop.kind == "entity" ? ", \(n) rows in the source" : drop.kind == "attribute" ? ", \(n) non-null values in the source" : ", \(n) links in the source"
                } ?? uncounted
                lines.append("  drops \(drop.kind) \(drop.name)\(count)")
            }
            if !hop.newEntities.isEmpty { lines.append("  new entities, empty: " + hop.newEntities.joined(separator: ", ")) }
        }
        for hop in report.fused ?? [] {
            lines.append("")
            lines.append("fused: \(hop.from) → \(hop.to)  \(hop.name)  runs \(hop.runs)" + (hop.reason.map { ": \($0)" } ?? ""))
            lines.append("  its hops run as one step, where the source holds no row the first would reject or leave invalid "
                         + "(etl run --separate-steps runs them apart); the store between is not written")
            lines += mappingLines(hop)
        }
        for reason in report.notFused ?? [] {
            lines.append("")
            lines.append("not fused: \(reason)")
        }
        for notice in report.notices ?? [] {
            lines.append("")
            lines.append("note: \(notice)")
        }
        return lines.joined(separator: "\n")
    }
}
