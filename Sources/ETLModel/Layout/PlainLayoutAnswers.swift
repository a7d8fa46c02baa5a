import Foundation

/// What a plain layout has worked out from its model: the tables of its entities, the
/// storage of its relationships and its schema, each the first time it is asked.
///
/// A batch runs every store of one schema with one plan (`PlanCache`), and each run asks
/// that plan's layouts the same questions again — for its statements, its checks, its
/// indexes: perf put `schemaSQL`, `storage(ofRelationship:)`, `table(of:)` and the model
/// lookups under them (`Model.lineage`) at 5 % of a batch of small stores.
///
/// Kept by reference, so the copies of a layout share it. Sound because every answer is a
/// function of the layout's model, which a layout never changes (`let`), and of
/// `declaresRequired`, which is part of the schema's key.
final class PlainLayoutAnswers: @unchecked Sendable {
    private struct Relationship: Hashable {
        let entity: String
        let name: String
    }

    private let lock = NSLock()
    private var tables: [String: EntityTable] = [:]
    private var storages: [Relationship: RelationshipStorage] = [:]
    private var schemas: [Bool: [String]] = [:]

    func table(of entity: String, work: () -> EntityTable) -> EntityTable {
        remembered(\.tables, entity, work)
    }

    func storage(ofRelationship name: String, entity: String, work: () -> RelationshipStorage) -> RelationshipStorage {
        remembered(\.storages, Relationship(entity: entity, name: name), work)
    }

    func schemaSQL(declaresRequired: Bool, work: () -> [String]) -> [String] {
        remembered(\.schemas, declaresRequired, work)
    }

    /// The answer kept under `key`, else `work()`'s, kept. (Worked out outside the lock: two
    /// threads asking at once both work it out, and keep the same answer.)
    private func remembered<Key: Hashable, Value>(_ answers: ReferenceWritableKeyPath<PlainLayoutAnswers, [Key: Value]>,
                                                  _ key: Key, _ work: () -> Value) -> Value {
        if let known = lock.withLock({ self[keyPath: answers][key] }) { return known }
        let value = work()
        lock.withLock { self[keyPath: answers][key] = value }
        return value
    }
}
