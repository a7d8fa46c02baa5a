import Foundation
import ETLStore
import ETLPipeline
import ETLExpression
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
/// A Core Data store's plan is shared by the stores of its kind too (`kind(of:)`: same
/// schema, entity numbers, kept model and version hashes): what else its plan carries of
/// the store — its UUID and metadata, for the result's `Z_METADATA` — is set per store.
///
/// The stores sharing a plan share its `PlanMemo` too: what their runs work out from the
/// plan alone (its push-down statements, its pipeline's fingerprint) is worked out once.
public final class PlanCache: @unchecked Sendable {
    private let lock = NSLock()
    private var specs: [String: PipelineSpec] = [:]
    private var plans: [String: Plan] = [:]
    private var makers: [String: NSLock] = [:]

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
    /// kind, given this spec (its paths) and, for a Core Data store, its own metadata; else
    /// `make()`'s, kept for the next such store.
    func plan(_ spec: PipelineSpec, source: Database, make: () throws -> Plan) throws -> Plan {
        let (key, metadata) = try kind(of: source, layout: spec.source.layout)
        // One plan per kind, also when two jobs reach their first stores of a kind at once:
        // the second waits for the first's plan instead of making its own.
        let making = lock.withLock { () -> NSLock in
            if let existing = makers[key] { return existing }
            let made = NSLock()
            makers[key] = made
            return made
        }
        making.lock()
        defer { making.unlock() }
        lock.lock()
        let known = plans[key]
        lock.unlock()
        if var known {
            known.spec = spec
            if spec.source.layout == .coredata { known.adoptMetadata(metadata, newStoreUUID: spec.destination.newStoreUUID) }
            return known
        }
        var plan = try make()
        plan.memo = PlanMemo()
        lock.lock()
        plans[key] = plan
        lock.unlock()
        return plan
    }

    /// What decides a store's plan. A plain store: its schema (`sqlite_schema`), which its
    /// version is detected from. A Core Data store: its schema too (the real table and
    /// column names), its entity numbers (`Z_PRIMARYKEY` but the counters), the model it
    /// keeps (`Z_MODELCACHE`, a bundle-less pipeline's source model) and the version hashes
    /// and identifiers of its metadata (its version); not its UUID or its app's own keys,
    /// which only the result's metadata carries (`Plan.adoptMetadata`). Read through the
    /// store's connection, a `-wal` included: the state of the WAL does not matter.
    /// With the key, a Core Data store's metadata as read for it, which the plan adopts
    /// (read once a store, not twice: a read decodes its property list).
    private func kind(of source: Database, layout: LayoutKind) throws -> (key: String, metadata: CoreDataMetadata?) {
        var parts = try source.rows("SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY type, name, tbl_name")
            .map { row in row.map(\.sqlLiteral).joined(separator: ",") }
        guard layout == .coredata else { return (parts.joined(separator: "\n"), nil) }
        parts.append("coredata")
        if try source.table(named: "Z_PRIMARYKEY") != nil {
            parts += try source.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .map { row in row.map(\.sqlLiteral).joined(separator: ",") }
        }
        if try source.table(named: "Z_MODELCACHE") != nil {
            // Hashed for this process only (the key lives in memory), not written anywhere.
            var hash = Hasher()
            for row in try source.rows("SELECT Z_CONTENT FROM Z_MODELCACHE") {
                if case .blob(let bytes)? = row.first { hash.combine(bytes.count); bytes.withUnsafeBytes { hash.combine(bytes: $0) } }
            }
            parts.append("modelcache \(hash.finalize())")
        }
        var metadata: CoreDataMetadata?
        if try source.table(named: "Z_METADATA") != nil {
            let read = try CoreDataMetadata.read(source)
            metadata = read
            parts.append("identifiers " + read.versionIdentifiers.joined(separator: ","))
            for (entity, hash) in read.versionHashes.sorted(by: { $0.key < $1.key }) {
                parts.append("hash \(entity) \(hash.base64EncodedString())")
            }
        }
        return (parts.joined(separator: "\n"), metadata)
    }
}
