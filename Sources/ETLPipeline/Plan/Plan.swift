import Foundation
import ETLModel

/// A pipeline checked against its models, ready to run: every name resolved, every
/// expression parsed and type-checked, before a single row is read.
public struct Plan: Sendable {
    public var spec: PipelineSpec
    /// The hops to run, in order; empty when the source is already at the target version.
    public var steps: [StepPlan]
    /// The model version of the source store (detected, with a bundle) and of the result.
    public var sourceVersion: String
    public var targetVersion: String
    /// Every model file the plan was made from: their bytes are part of a run's identity.
    public var modelFiles: [String]
    /// What runs of this plan work out once (`PlanMemo`); set by `PlanCache` on the plans it
    /// keeps, nil for a plan made on its own.
    public var memo: PlanMemo?

    /// The final destination (may be overridden on the command line before planning).
    public var destinationPath: String { spec.destination.store }
    public var sourcePath: String { spec.source.store }
}

/// One hop between two model versions.
public struct StepPlan: Sendable {
    public var index: Int
    public var name: String
    public var sourceModel: Model
    public var destinationModel: Model
    public var sourceLayout: any StoreLayout
    public var destinationLayout: any StoreLayout
    /// Indexed by `MappingID`.
    public var mappings: [MappingPlan]
    /// Where rows go, indexed by `TargetID`: each mapping's own target, in mapping order,
    /// then the policies' extra entities.
    public var targets: [TargetPlan] = []
    /// True for a lightweight step derived from the two versions alone.
    public var isInferred: Bool = false
    /// For an inferred step: what the inference decided, its dropped entities and properties
    /// included (what `etl plan` shows).
    public var inferred: InferredStep?
    /// What the step removes, data and all: source entities (`"Entity"`) and properties
    /// (`"Entity.property"`) of an inferred step. The engine counts their non-null values.
    public var removed: [String] { inferred.map { $0.droppedEntities + $0.droppedProperties } ?? [] }
}
