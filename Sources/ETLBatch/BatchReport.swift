import Foundation
import ETL

/// The outcome of a batch: one entry per store, those finished by earlier runs of the
/// same batch included. `--report FILE` writes it as JSON.
public struct BatchReport: Sendable, Codable {
    public var pipeline: String
    /// `I/N`, or `all`.
    public var shard: String
    /// `out DIR` or `in place`.
    public var output: String
    public var manifest: String
    /// This run's start and end, seconds since 1970.
    public var started: Double
    public var finished: Double
    /// Stopped by SIGINT/SIGTERM before every store was tried.
    public var interrupted: Bool
    /// Stores per status (every status present, 0 included).
    public var counts: [String: Int]
    /// Rows written into the results of the stores done.
    public var rows: Int
    /// One entry per store, by relative path.
    public var stores: [BatchStoreResult]
    /// Files whose names are not UTF-8, which the batch could not migrate (`BatchStoreList.unnamed`).
    public var unnamed: [String]?

    public init(pipeline: String, shard: String, output: String, manifest: String, started: Double, finished: Double,
                interrupted: Bool, stores: [BatchStoreResult]) {
        self.pipeline = pipeline
        self.shard = shard
        self.output = output
        self.manifest = manifest
        self.started = started
        self.finished = finished
        self.interrupted = interrupted
        self.stores = stores.sorted { $0.path < $1.path }
        var counts: [String: Int] = [:]
        for status in BatchStatus.allCases where status != .started { counts[status.rawValue] = 0 }
        for store in stores { counts[store.status.rawValue, default: 0] += 1 }
        self.counts = counts
        rows = stores.filter { $0.status == .done }.reduce(0) { $0 + $1.totalRows }
    }

    /// This run's wall-clock seconds.
    public var seconds: Double { finished - started }

    public func count(_ status: BatchStatus) -> Int { counts[status.rawValue] ?? 0 }

    public var failures: [BatchStoreResult] { stores.filter { $0.status == .failed } }

    /// Whether every store is done or up to date.
    public var succeeded: Bool { stores.allSatisfy { $0.status == .done || $0.status == .skipped } && (unnamed ?? []).isEmpty }

    /// Where the time of the stores this run migrated went, summed part by part, and how
    /// many stores that is: `cost.total / count` is the cost of one store.
    public var costOfDoneStores: (cost: BatchStoreCost, count: Int) {
        let costs = stores.filter { $0.status == .done && $0.time >= started }.compactMap(\.cost)
        return (BatchStoreCost.sum(costs), costs.count)
    }

    /// The `n` stores that took longest (done or failed).
    public func slowest(_ n: Int) -> [BatchStoreResult] {
        Array(stores.filter { $0.status == .done || $0.status == .failed }.sorted { $0.seconds > $1.seconds }.prefix(n))
    }

    /// Stores whose outcome an earlier run of the batch recorded.
    public var finishedEarlier: Int {
        stores.filter { $0.status != .pending && $0.status != .interrupted && $0.time < started }.count
    }

    /// The report as JSON (sorted keys, indented).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the JSON report through a temporary file renamed over `path`.
    public func write(to path: String) throws {
        try BatchFiles.writeAtomically(try json(), to: path)
    }

    public static func read(path: String) throws -> BatchReport {
        try JSONDecoder().decode(BatchReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Rows per destination entity that a run's last step wrote: the result's content. (The
    /// last step the run ran: two steps of the plan may have run as one, `StepFusion`.)
    static func rows(_ summary: RunSummary) -> [String: Int] {
        guard let last = summary.mappings.last?.step else { return [:] }
        var rows: [String: Int] = [:]
        for mapping in summary.mappings where mapping.step == last {
            rows[mapping.destination, default: 0] += mapping.written
        }
        return rows
    }

    /// Rows per entity counted in a result store (when its run's counters were lost).
    static func rowsInStore(_ path: String, plan: Plan) -> [String: Int] {
        guard let inspection = try? StoreInspection.inspect(path: path) else { return [:] }
        let entities = plan.steps.last.map { Set($0.destinationModel.entities.map(\.name)) }
        var rows: [String: Int] = [:]
        for entity in inspection.entities where entities?.contains(entity.entity) ?? true {
            rows[entity.entity, default: 0] += entity.rows
        }
        return rows
    }
}
