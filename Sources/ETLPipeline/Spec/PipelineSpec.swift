import Foundation
import ETLModel
import ETLExpression
import ETLCoreData
import ETLDocument

/// A pipeline file, version 1 of the format (its keys: `PipelineFormat`), as written —
/// before any model is read.
///
/// Paths inside the file are relative to the file's own folder. `PipelineSpec.load` checks
/// the shape (types, required and unknown keys); `Plan` checks the meaning against the models.
public struct PipelineSpec: Sendable {
    /// Whether planning reads the source store: a model bundle's version is detected in
    /// it, and a Core Data source's real table and column names come from it. The one place
    /// that decides it, for `run`, `plan`, `batch` and `status`.
    public var planningReadsSource: Bool { models != nil || source.layout == .coredata }

    /// The pipeline file's path as given, used in every error message.
    public var file: String
    /// The raw bytes, hashed into checkpoints so an edited pipeline is noticed.
    public var bytes: [UInt8]
    public var source: StoreSpec
    public var destination: StoreSpec
    public var options: Options
    public var steps: [StepSpec]
    /// A model bundle (`Name.xcdatamodeld`): the chain of versions. With it, the source's
    /// version is detected, the destination names a version, and every hop without an
    /// explicit step is an inferred (lightweight) one.
    public var models: String?
    public var modelsCursor: JSONCursor?
    /// `"models": [A, B, …]`: the bundles after the first, merged with it into one model
    /// (an app built from modules opens its store with a model merged from several bundles).
    public var mergedModels: [String] = []
    /// Where a hop without an explicit step looks for an Xcode mapping model, as Core Data
    /// does (`"mappingModels": "DIR"`; by default the bundle's own folder, `false`: nowhere).
    public var mappingModelsFolder: String?
    public var mappingModelsCursor: JSONCursor?
    /// Removals the pipeline declares intended (`"drop"`): source entities (`"Entity"`) and
    /// properties (`"Entity.property"`) a step of the run may leave unread, data and all
    /// (an inferred hop's likely rename included). Each with where it was written.
    public var drop: [(name: String, cursor: JSONCursor)] = []
    /// What to do with the source's tables that belong to no entity (`"history"`,
    /// `"cloudKit"`, `"otherTables"`), by kind; a kind the store has and this does not
    /// name is refused before a row is read.
    public var unmodeledTables: [UnmodeledTable.Kind: UnmodeledTableAction] = [:]
    /// What to do with a source link that names no row (`"danglingLinks"`): reject it, by default.
    public var danglingLinks = DanglingLinkRules()

    /// Whether a model comes from a store's `Z_MODELCACHE` (no bundle): a Core Data source
    /// without a `model` brings its own, a destination's `modelFrom` names the store that has it.
    public var takesModelsFromStores: Bool { models == nil && (source.model == nil || destination.modelFrom != nil) }
}

/// One end of the pipeline: a store file, its model version and its layout.
public struct StoreSpec: Sendable {
    /// The store path, resolved against the pipeline's folder.
    public var store: String
    /// The model file path, resolved against the pipeline's folder; nil with a bundle.
    public var model: String?
    /// The version name in the pipeline's bundle (destination: default the bundle's current
    /// version; source: default detected from the store).
    public var version: String?
    public var layout: LayoutKind
    /// Where `"layout"` is written; nil when the pipeline leaves it out.
    public var layoutCursor: JSONCursor?
    /// Source only: the layout is not written and is the store's own, found when the store
    /// is opened (`PipelineSpec.reading(sourceLayout:)`): with a model bundle.
    public var layoutFromStore = false
    /// Destination only: a store the app wrote at the target version, whose own model
    /// (`Z_MODELCACHE`) is the target model, instead of a model file or a bundle's version.
    public var modelFrom: String?
    public var modelFromCursor: JSONCursor?
    /// An empty store the app created at the destination's version: its table definitions
    /// and Core Data metadata (version hashes) are copied.
    public var template: String?
    public var templateCursor: JSONCursor?
    /// Where the store and model were named, for errors.
    public var storeCursor: JSONCursor
    public var modelCursor: JSONCursor?
    public var versionCursor: JSONCursor?
    public var cursor: JSONCursor
    /// `"newStoreUUID": true` on a Core Data destination: the new store gets a UUID of its
    /// own instead of the source's (a copy that must not pass for the original).
    public var newStoreUUID = false
}

/// Run options; the command line may override each.
public struct Options: Sendable {
    /// Source rows per chunk: the unit of transformation, loading and (later) checkpoints.
    public var chunkSize: Int = 1000
    /// Worker queues evaluating mappings in parallel.
    public var workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Source rows that may be rejected (an expression or a policy threw for them) before
    /// the run fails; rejected rows are kept in DESTINATION.rejects.jsonl.zst.
    public var maxRejects: Int = 0
    /// What every mapping does with a stored value the reading rule does not read,
    /// unless the mapping says otherwise (`"unreadable"`).
    public var unreadable: UnreadableAction = .reject

    public init() {}
}

/// A hop from one model version to the next (one Core Data mapping model).
public struct StepSpec: Sendable {
    public var name: String
    /// With a bundle: the version this step starts from.
    public var from: String?
    /// The model file this step produces (with a bundle: the version name); the last step
    /// of a pipeline without bundle produces the destination's model.
    public var to: String
    public var toCursor: JSONCursor?
    public var mappings: [MappingSpec]
    public var cursor: JSONCursor
    /// With a bundle: the Xcode mapping models (`Name.xcmappingmodel`) whose entity mappings
    /// are the step's, imported when the plan knows the hop's versions (`mappings` is empty).
    /// Several are Core Data's multi-pass migration of one hop: run in order, each pass's
    /// mappings linking only the rows of its own pass.
    public var mappingModels: [String] = []
    public var mappingModelCursor: JSONCursor? = nil
    /// The step's own `"drop"`: what of its source it may leave unread, as the pipeline's.
    public var drop: [(name: String, cursor: JSONCursor)] = []
    /// The first (usually the one) mapping model.
    public var mappingModel: String? { mappingModels.first }
    /// Found, not written: the mapping model of this hop in the pipeline's mapping models folder.
    public var isFound = false
}

/// One entity mapping (NSEntityMapping).
public struct MappingSpec: Sendable {
    public var name: String
    public var source: String
    public var destination: String
    public var filter: ExpressionSpec?
    /// Destination attribute name → expression, in the order written.
    public var attributes: [(name: String, expression: ExpressionSpec)]
    /// Destination relationship name → expression, in the order written.
    public var relationships: [(name: String, expression: ExpressionSpec)]
    public var uniqueBy: ExpressionSpec?
    public var forEach: ExpressionSpec?
    public var policy: String?
    /// `"unreadable"`: for every value the mapping reads (`all`), or per source attribute,
    /// with the cursor of each name (checked against the source entity by the planner).
    public var unreadable: (all: UnreadableAction?, byAttribute: [(name: String, action: UnreadableAction, cursor: JSONCursor)]) = (nil, [])
    public var cursor: JSONCursor
    public var sourceCursor: JSONCursor
    public var destinationCursor: JSONCursor
    public var policyCursor: JSONCursor?
}

/// An expression as written, with its place in the file.
public struct ExpressionSpec: Sendable {
    public var text: String
    public var cursor: JSONCursor
    /// The text is etl's translation of what the file says (an Xcode mapping model's
    /// expression), not the file's own: a column in it is no column of the file, so an
    /// error names the place and the character of the translation.
    public var isTranslation = false
}

/// What a pipeline says to do with tables that belong to no entity.
public enum UnmodeledTableAction: String, Sendable, CaseIterable {
    /// The destination goes without them; the summary says so.
    case drop
    /// They are copied into the destination (history: its entity numbers renumbered for
    /// the destination's), when the rows they refer to keep their keys.
    case carry
}
