import Foundation
import ETL

/// What `etl batch --dry-run` says a batch would do with one store — migrate it (from which
/// version to which; again, and why), skip it (up to date), refuse it (why), keep the
/// outcome an earlier run recorded, or (`--report-stale`) report it stale — decided as its
/// run decides (`BatchTriage`, then the store read: its layout checked, its version
/// detected), never written.
public struct BatchStorePlan: Sendable, Codable, Equatable {
    public enum Decision: String, Sendable, Codable {
        case migrate, skip, refuse
        /// Recorded by an earlier run, and what made it is unchanged: not touched.
        case keep
        /// `--report-stale`: made with other inputs; reported, not touched.
        case stale
    }

    /// The store's path relative to the batch's base.
    public var store: String
    public var decision: Decision
    public var fromVersion: String?
    public var toVersion: String?
    /// Hops a run would make.
    public var hops: Int = 0
    /// Why a store is refused, migrated again, kept or stale.
    public var reason: String?
}

extension Batch {
    /// What a run of this batch would do with each of its stores, writing nothing (not even
    /// the manifest): the manifest read as the run reads it, each store decided as the run
    /// decides (`BatchTriage`), and those it would run planned, one after the other.
    public func dryRun() throws -> [BatchStorePlan] {
        let contents = options.restart ? BatchManifest.Contents(header: nil, entries: [], validLength: 0, damagedFrames: 0)
                                       : try BatchManifest.read(path: options.manifest)
        let inputs = try BatchInputs.of(pipeline: options.pipeline, run: options.run)
        let triage = BatchTriage(options: options, inputs: inputs, recorded: contents.inputs)
        let latest = contents.latest
        let cache = PlanCache()
        return options.stores.map { store in
            switch triage.decide(store, prior: latest[store.path]) {
            case .keep(let prior):
                let reason = prior.status == .failed ? "failed in an earlier run (\(prior.error ?? "")); --retry-failed migrates it again"
                                                     : "\(prior.status == .done ? "done" : "up to date") in an earlier run; what made it is unchanged"
                return BatchStorePlan(store: store.relativePath, decision: .keep, fromVersion: prior.fromVersion, toVersion: prior.toVersion,
                                      reason: reason)
            case .stale(let prior):
                return BatchStorePlan(store: store.relativePath, decision: .stale, fromVersion: prior.fromVersion, toVersion: prior.toVersion,
                                      reason: prior.stale?.joined(separator: "; "))
            case .run(let reasons):
                var migration = Migration(pipeline: options.pipeline, options: options.run)
                migration.source = store.path
                migration.plans = cache
                var decided = Batch.plan(migration, store: store)
                if !reasons.isEmpty, decided.decision != .refuse { decided.reason = "again: " + reasons.joined(separator: "; ") }
                return decided
            }
        }
    }

    static func plan(_ migration: Migration, store: BatchStore) -> BatchStorePlan {
        do {
            let plan = try migration.planReadingSource()
            // What the run would refuse before reading a row, as `etl plan` does.
            if !plan.steps.isEmpty {
                let source = try migration.openSource()  // kept open while checked: it closes its database when released
                try SourceRefusals.check(plan, source: source.database, quickCheck: migration.options.checkSource ? migration.options : nil)
                withExtendedLifetime(source) {}
            }
            return BatchStorePlan(store: store.relativePath, decision: plan.steps.isEmpty ? .skip : .migrate,
                                  fromVersion: plan.sourceVersion, toVersion: plan.targetVersion, hops: plan.steps.count)
        } catch {
            return BatchStorePlan(store: store.relativePath, decision: .refuse, reason: String(describing: error))
        }
    }

    /// Plans every store of a batch, one after the other, writing nothing, as if no run of
    /// it had been made (no manifest read: `dryRun()` reads it).
    public static func plan(pipeline: String, stores: [BatchStore], policies: PolicyRegistry = PolicyRegistry()) -> [BatchStorePlan] {
        stores.map { store in
            var migration = Migration(pipeline: pipeline)
            migration.policies = policies
            migration.source = store.path
            return plan(migration, store: store)
        }
    }
}
