import Foundation
import ETLStore
import ETLPipeline
import ETLEngine

/// The plans of many stores going through one pipeline (`etl batch`), made once per kind of
/// store instead of once per store: the pipeline file is read once, and a plain SQLite
/// store whose schema is that of a store planned before gets that plan, with its own paths.
///
///     let plans = PlanCache()
///     var migration = Migration(pipeline: "upgrade.json")
///     migration.plans = plans   // then, per store: source, destination, run
///
/// A plain store's plan depends on the store only through its version, which the planner
/// detects from its schema alone (`VersionDetector`): same schema, same plan. A store of
/// another schema (another version, or a changed one) is planned, and checked, on its own.
/// A Core Data store's plan also carries the store's own names, UUID and metadata: it is
/// always planned on its own.
///
/// The stores sharing a plan share its `PlanMemo` too: what their runs work out from the
/// plan alone (its push-down statements, its pipeline's fingerprint) is worked out once.
public final class PlanCache: @unchecked Sendable {
    private let lock = NSLock()
    private var specs: [String: PipelineSpec] = [:]
    private var plans: [String: Plan] = [:]

    public init() {}

    /// The kinds of store planned so far.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return plans.count
    }

    /// The pipeline file `path`, read (and checked by `load`) the first time only.
    func spec(_ path: String, load: () throws -> PipelineSpec) throws -> PipelineSpec {
        lock.lock()
        let known = specs[path]
        lock.unlock()
        if let known { return known }
        let spec = try load()
        lock.lock()
        specs[path] = spec
        lock.unlock()
        return spec
    }

    /// The plan of `spec` for the store `source`: the one made for a store of the same
    /// schema, given this spec (its paths), else `make()`'s, kept for the next such store.
    func plan(_ spec: PipelineSpec, source: Database, make: () throws -> Plan) throws -> Plan {
        guard spec.source.layout == .plain else { return try make() }
        let schema = try source.rows("SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY type, name, tbl_name")
        let key = schema.map { row in row.map(\.sqlLiteral).joined(separator: ",") }.joined(separator: "\n")
        lock.lock()
        let known = plans[key]
        lock.unlock()
        if var known {
            known.spec = spec
            return known
        }
        var plan = try make()
        plan.memo = PlanMemo()
        lock.lock()
        plans[key] = plan
        lock.unlock()
        return plan
    }
}
