import Foundation
import ETL
import Prometheus

/// The batch's metrics as a Prometheus text file, for node_exporter's textfile collector
/// (`--collector.textfile.directory`): written to a temporary file and renamed over the
/// previous one, so the collector never reads half a file.
///
///     etl_batch_stores{pipeline="books.json",shard="all",status="done"} 55.0
///     etl_batch_rows_migrated{pipeline="books.json",shard="all"} 61234.0
///     etl_batch_duration_seconds{pipeline="books.json",shard="all"} 12.5
///     etl_batch_last_success_timestamp_seconds{pipeline="books.json",shard="all"} 1767225600.0
///
/// Every metric is labelled with the pipeline's file name and the shard, so the files of
/// several shards (or pipelines) in one collector folder never clash. The last success
/// is the end of the last run in which every store was done or up to date; a run with
/// failures keeps the previous file's value.
public enum BatchMetrics {
    public static func render(_ report: BatchReport, previous: String? = nil) -> String {
        let registry = PrometheusCollectorRegistry()
        let labels = [("pipeline", (report.pipeline as NSString).lastPathComponent), ("shard", report.shard)]
        func gauge(_ name: String, unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "etl", subsystem: "batch", metricName: name, unitName: unit, helpText: help)
        }
        let stores = gauge("stores", unit: "", "Stores of the batch by status (skipped: already at the target version)")
        for status in [BatchStatus.done, .skipped, .failed, .interrupted, .pending] {
            registry.makeGauge(descriptor: stores, labels: labels + [("status", status.rawValue)]).set(to: Double(report.count(status)))
        }
        registry.makeGauge(descriptor: gauge("rows", unit: "migrated", "Rows written into the migrated stores of the batch"), labels: labels)
            .set(to: Double(report.rows))
        registry.makeGauge(descriptor: gauge("duration", unit: "seconds", "Wall-clock seconds of the last run of the batch"), labels: labels)
            .set(to: report.seconds)
        let lastSuccess = report.succeeded && !report.interrupted ? report.finished : previous.flatMap(lastSuccessTimestamp)
        if let lastSuccess {
            registry.makeGauge(descriptor: gauge("last_success_timestamp", unit: "seconds",
                                                 "When a run of the batch last ended with every store done or up to date, seconds since 1970"),
                               labels: labels)
                .set(to: lastSuccess)
        }
        // The registry emits families in no fixed order: sort them, for people and diffs.
        return sortedFamilies(registry.emitToString())
    }

    /// Writes the metrics file atomically, keeping the last success time of the file it replaces.
    public static func write(_ report: BatchReport, to path: String) throws {
        let previous = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
        try BatchFiles.writeAtomically(Data(render(report, previous: previous).utf8), to: path)
    }

    /// The value of `etl_batch_last_success_timestamp_seconds` in a metrics file.
    static func lastSuccessTimestamp(_ text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix("etl_batch_last_success_timestamp_seconds") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { return value }
        }
        return nil
    }

    /// Lines sorted by metric name, each family's `# HELP` and `# TYPE` first, then its samples.
    private static func sortedFamilies(_ text: String) -> String {
        func key(_ line: Substring) -> (String, Int, String) {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let name = line.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
                return (name, line.hasPrefix("# HELP ") ? 0 : 1, "")
            }
            let name = line.prefix { $0 != "{" && $0 != " " }
            return (String(name), 2, String(line))
        }
        let lines = text.split(separator: "\n").map { (key($0), $0) }
        return lines.sorted { $0.0 < $1.0 }.map { String($0.1) }.joined(separator: "\n") + "\n"
    }
}
