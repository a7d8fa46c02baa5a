import Foundation
import ETL

/// Whether a store is already what a batch would make of it, when the pipeline names its
/// versions instead of detecting them (a plain-layout pipeline plans every store from its
/// first step). A store another batch upgraded in place, or that `--retry-failed` finds
/// upgraded since, has the target model's tables and columns and lacks the first step's:
/// it is up to date, not a store to migrate again (which would fail on its schema).
enum BatchStoreVersion {
    static func isAtTarget(_ path: String, plan: Plan) -> Bool {
        guard let first = plan.steps.first, let last = plan.steps.last,
              let db = try? Database(path: path, mode: .readOnly, hardened: true) else { return false }
        defer { db.close() }
        return !matches(db, first.sourceLayout) && matches(db, last.destinationLayout)
    }

    /// Every table and column of the layout's model is in the store.
    private static func matches(_ db: Database, _ layout: any StoreLayout) -> Bool {
        for entity in layout.model.entities where !entity.isAbstract {
            guard let table = try? db.table(named: layout.table(of: entity.name).name) else { return false }
            for attribute in layout.model.attributes(of: entity.name)
            where table.column(named: layout.column(ofAttribute: attribute.name, entity: entity.name)) == nil {
                return false
            }
        }
        return true
    }
}
