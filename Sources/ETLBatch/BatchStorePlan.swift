import Foundation
import ETL

/// What `etl batch --dry-run` says a batch would do with one store — migrate it (from which
/// version to which), skip it (up to date) or refuse it (why) — decided as its run decides:
/// the store is read (its layout checked, its version detected), never written.
public struct BatchStorePlan: Sendable, Codable, Equatable {
    public enum Decision: String, Sendable, Codable {
        case migrate, skip, refuse
    }

    /// The store's path relative to the batch's base.
    public var store: String
    public var decision: Decision
    public var fromVersion: String?
    public var toVersion: String?
    /// Hops a run would make.
    public var hops: Int = 0
    /// Why a store is refused.
    public var reason: String?
}

extension Batch {
    /// Plans every store of a batch, one after the other, writing nothing.
    public static func plan(pipeline: String, stores: [BatchStore], policies: PolicyRegistry = PolicyRegistry()) -> [BatchStorePlan] {
        stores.map { store in
            var migration = Migration(pipeline: pipeline)
            migration.policies = policies
            migration.source = store.path
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
    }
}
