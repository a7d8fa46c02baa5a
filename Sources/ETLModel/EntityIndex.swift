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
    }

    private let lock = NSLock()
    private var answers: Answers?

    func position(of name: String, in entities: [Entity]) -> Int? {
        self.answers(for: entities).positions[name]
    }

    func children(of name: String, in entities: [Entity]) -> [Int] {
        self.answers(for: entities).children[name] ?? []
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
        let worked = Answers(positions: positions, children: children)
        lock.withLock { answers = worked }
        return worked
    }
}
