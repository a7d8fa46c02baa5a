/// An entity mapping of a step: its place in `StepPlan.mappings`.
///
/// Mappings and targets (`TargetID`) are both numbered from 0, and a mapping's own target
/// happens to have the mapping's number, but the extra entities a policy `creates` are
/// targets after every mapping: one is never the other. The two types keep them apart, so
/// code that reads a target where it means a mapping does not compile.
///
///     for id in step.mappingIDs {
///         let mapping = step.mappings[id]
///         let entities = mapping.targets.map { step.targets[$0].entity }   // its own, then what its policy creates
///     }
///
/// The number itself (`index`) leaves the plan only where a file or a table stores it: the
/// checkpoint's `mapping` and `key`, the work database's `mapping` columns.
public struct MappingID: Hashable, Comparable, Sendable {
    public let index: Int

    public init(_ index: Int) { self.index = index }

    public static func < (a: MappingID, b: MappingID) -> Bool { a.index < b.index }
}

/// Where a step's created rows go (`TargetPlan`): its place in `StepPlan.targets`. Each
/// target has its own associations, counters and uniqueBy keys (see `MappingID`).
public struct TargetID: Hashable, Comparable, Sendable {
    public let index: Int

    public init(_ index: Int) { self.index = index }

    public static func < (a: TargetID, b: TargetID) -> Bool { a.index < b.index }
}

extension StepPlan {
    /// The step's mappings, in the order they run.
    public var mappingIDs: [MappingID] { mappings.indices.map(MappingID.init) }

    /// The step's targets: each mapping's own, in mapping order, then the policies' extra entities.
    public var targetIDs: [TargetID] { targets.indices.map(TargetID.init) }
}

extension Array where Element == MappingPlan {
    public subscript(id: MappingID) -> MappingPlan {
        get { self[id.index] }
        set { self[id.index] = newValue }
    }
}

extension Array where Element == TargetPlan {
    public subscript(id: TargetID) -> TargetPlan {
        get { self[id.index] }
        set { self[id.index] = newValue }
    }
}
