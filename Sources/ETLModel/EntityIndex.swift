import Foundation

/// Where each entity of a model sits, and which entities name it as their parent, worked
/// out the first time a lookup asks and kept until the model's entities change.
///
/// A model read from a store nobody vouches for can hold thousands of entities, each the
/// sub-entity of the one before: with a search through the list for every step up an
/// inheritance chain, reading, hashing and checking such a model took time cubic in its
/// entities (issue 45: 2,000 entities, 30 s). With this, a lookup by name is one dictionary
/// probe.
///
/// Kept by reference, so copies of a model share it; sound because `Model` replaces it
/// whenever its entities change, and the answers are a function of the entities alone.
final class EntityIndex: @unchecked Sendable {
    private struct Answers {
        /// Name → position of its first entity (as a search from the front finds it).
        var positions: [String: Int]
        /// Parent name → the positions of its sub-entities, in the model's order.
        var children: [String: [Int]]
        /// By position: the position of the entity's parent, or -1 (none, or not in the model).
        var parents: [Int]
    }

    private let lock = NSLock()
    private var answers: Answers?

    func position(of name: String, in entities: [Entity]) -> Int? {
        self.answers(for: entities).positions[name]
    }

    func children(of name: String, in entities: [Entity]) -> [Int] {
        self.answers(for: entities).children[name] ?? []
    }

    /// The positions of the entity named `name` and of its parents, nearest first, each
    /// once (a cycle ends where it would repeat): `Model.lineage(of:)` without its copies of
    /// the entities and its set of names, for the lookups that walk it on every call.
    func lineage(of name: String, in entities: [Entity]) -> [Int] {
        let answers = self.answers(for: entities)
        guard var position = answers.positions[name] else { return [] }
        var result: [Int] = []
        var seen: Set<Int>?
        while true {
            result.append(position)
            let next = answers.parents[position]
            guard next >= 0 else { return result }
            // Chains are short: looked for in the list, until one is long enough for a set.
            if result.count > 16 {
                if seen == nil { seen = Set(result) }
                guard seen!.insert(next).inserted else { return result }
            } else if result.contains(next) {
                return result
            }
            position = next
        }
    }

    private func answers(for entities: [Entity]) -> Answers {
        if let known = lock.withLock({ answers }) { return known }
        var positions: [String: Int] = [:]
        var children: [String: [Int]] = [:]
        positions.reserveCapacity(entities.count)
        for (i, entity) in entities.enumerated() {
            if positions[entity.name] == nil { positions[entity.name] = i }
            if let parent = entity.parent { children[parent, default: []].append(i) }
        }
        let parents = entities.map { entity in entity.parent.flatMap { positions[$0] } ?? -1 }
        let worked = Answers(positions: positions, children: children, parents: parents)
        lock.withLock { answers = worked }
        return worked
    }
}
