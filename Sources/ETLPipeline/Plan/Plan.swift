import Foundation
import ETLModel

/// A pipeline checked against its models, ready to run: every name resolved, every
/// expression parsed and type-checked, before a single row is read.
public struct Plan: Sendable {
    public var spec: PipelineSpec
    public var steps: [StepPlan]

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
    public var mappings: [MappingPlan]
}
