import Foundation
import ETLModel
import ETLExpression
import ETLCoreData

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
    /// `steps` with adjacent steps fused where they can be (`StepFusion`); nil when none can.
    /// A run uses a fused step where the source allows it (`FusionCheck`).
    public var fusedSteps: [StepPlan]?
    /// Why adjacent steps are not fused, a sentence a pair.
    public var fusionRefusals: [String] = []
    /// What a run's summary and `etl plan` should tell about the plan, a sentence each: a
    /// `"drop"` entry for hops this store does not take; a bundle's version used where the
    /// model kept in the store differs from it.
    public var notes: [String] = []

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
    /// The step's mappings as written (an inferred step's as a user would have written
    /// them, a mapping model's as `etl mapping show` prints them): what `StepFusion` composes.
    public var written: StepSpec?
    /// A step made of several (`StepFusion`): those steps, as planned. Empty for a step as written.
    public var fusedFrom: [StepPlan] = []
    /// A fused step's relationships of its source that it reads as the rows they link (a
    /// `forEach`) where the first step read them through a lookup, which skips a link to a
    /// row that is not there: the source must hold no such link (`FusionCheck`).
    public var fusedLinkChecks: [LinkCheck] = []

    /// A relationship of a source entity.
    public struct LinkCheck: Sendable, Equatable {
        public var entity: String
        public var relationship: String
    }

    /// What the step removes, data and all, whatever kind of step it is: source entities
    /// (`"Entity"`) and properties (`"Entity.property"`) its mappings leave unread
    /// (`UnreadSource`). The engine counts their rows and non-null values, and refuses the
    /// step where one holds data that `declaredDrops` does not name.
    public var removed: [String] { UnreadSource.names(mappings: mappings, model: sourceModel) }
    /// Of `removed`, those the pipeline says are to go, each with who says so (the
    /// pipeline's or the step's `"drop"`, or the step's mapping model).
    public var declaredDrops: [String: String] = [:]
}
