import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline
import ETLEngine

/// What a run of a pipeline will do, before it writes anything (`etl plan`): the hops
/// between versions, explicit or inferred; every mapping, inside SQLite or row by row and
/// why; what an inferred hop drops, counted in the source when the source was read.
///
/// Made from the planner's `Plan` and the push-down planner's decisions
/// (`StepExecution`): the same decisions `etl run` makes, not a second opinion.
///
///     let report = try PlanReport.make(Migration(pipeline: "pipelines/books.json"))
///     report.hops.map(\.kind)   // ["explicit", "explicit"]
public struct PlanReport: Sendable, Codable, Equatable {
    public struct Hop: Sendable, Codable, Equatable {
        public var name: String
        public var from: String
        public var to: String
        /// "explicit" (a step of the pipeline), "found" (the mapping model Core Data would
        /// find for it, in the pipeline's mapping models folder) or "inferred" (lightweight,
        /// from the models).
        public var kind: String
        /// The Xcode mapping models the hop runs, in order.
        public var mappingModels: [String] = []
        /// "inside SQLite" or "row by row".
        public var runs: String
        /// Why the hop runs row by row.
        public var reason: String?
        public var mappings: [Mapping]
        /// What the hop leaves unread of its source (`StepPlan.removed`): entities and properties.
        public var drops: [Drop]
        /// An inferred hop's new entities, which start empty.
        public var newEntities: [String]
    }

    public struct Mapping: Sendable, Codable, Equatable {
        public var name: String
        public var source: String
        public var destination: String
        public var runs: String
        public var why: String
    }

    public struct Drop: Sendable, Codable, Equatable {
        /// "Entity" or "Entity.property".
        public var name: String
        /// "entity", "attribute" or "relationship".
        public var kind: String
        /// Rows (an entity), non-null values (an attribute) or links (a relationship) the
        /// source holds, when the source was read and the hop is the first one.
        public var count: Int?

        public init(name: String, kind: String, count: Int?) {
            self.name = name
            self.kind = kind
            self.count = count
        }
    }

    public var pipeline: String
    /// The source store read for the plan (its version detected), if it was.
    public var source: String?
    public var sourceVersion: String
    public var targetVersion: String
    /// True when the source is already at the target version: a run writes nothing.
    public var upToDate: Bool
    public var hops: [Hop]
    /// Hops that run as one step (`StepFusion`) where the source allows it (`FusionCheck`):
    /// each such step, its mappings read over the first hop's source.
    public var fused: [Hop]? = nil
    /// Why adjacent hops run one after the other, a sentence a pair.
    public var notFused: [String]? = nil
    /// What planning decided that the user should hear (`Plan.notes`).
    public var notices: [String]? = nil

    /// Plans `migration` as its run would: from the source store when it exists (its layout
    /// checked, its version detected, drops counted, and refused where the run would refuse
    /// it before reading a row: `SourceRefusals`), else from the pipeline alone.
    public static func make(_ migration: Migration) throws -> PlanReport {
        let spec = try migration.spec()
        // A source given on the command line must exist; the pipeline's own may not yet.
        guard migration.source != nil || FileManager.default.fileExists(atPath: spec.source.store) else {
            // No store to read: the pipeline alone (Core Data names by convention; a bundle
            // pipeline then needs the source's "version").
            let policies = migration.policies
            let plan = try Planner(policies: policies.signatures, functions: policies.functions).plan(spec, source: nil)
            return try make(plan, pipeline: migration.pipeline, source: nil, policies: policies)
        }
        let (plan, store) = try migration.planWithSource()
        // What the run would refuse in this source before reading a row, the plan refuses
        // too, with the run's message.
        try SourceRefusals.check(plan, source: store.database, quickCheck: migration.options.checkSource ? migration.options : nil)
        return try make(plan, pipeline: migration.pipeline, source: store.database, policies: migration.policies)
    }

    static func make(_ plan: Plan, pipeline: String, source: Database?, policies: PolicyRegistry) throws -> PlanReport {
        var report = try make(plan.steps, plan: plan, pipeline: pipeline, source: source, policies: policies)
        let fused = plan.fusedSteps?.filter { !$0.fusedFrom.isEmpty } ?? []
        if !fused.isEmpty {
            report.fused = try make(fused, plan: plan, pipeline: pipeline, source: nil, policies: policies).hops
        }
        if !plan.fusionRefusals.isEmpty { report.notFused = plan.fusionRefusals }
        if !plan.notes.isEmpty { report.notices = plan.notes }
        return report
    }

    private static func make(_ steps: [StepPlan], plan: Plan, pipeline: String, source: Database?, policies: PolicyRegistry) throws -> PlanReport {
        var hops: [Hop] = []
        for step in steps {
            let execution = try StepExecution.of(step, policies: policies)
            let mappings = zip(step.mappings, execution.mappings).map { mapping, way in
                Mapping(name: mapping.name, source: mapping.sourceEntity, destination: mapping.destinationEntity,
                        runs: way.insideSQLite ? "inside SQLite" : "row by row", why: way.why)
            }
            var drops: [Drop] = []
            // Counted in the store only for the first hop: later hops read stores not written yet.
            let store = step.index == 0 ? source : nil
            for name in step.removed {
                let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
                if parts.count == 1 {
                    drops.append(Drop(name: name, kind: "entity", count: try store.map { try rows(of: name, in: $0, layout: step.sourceLayout) }))
                } else {
                    let isAttribute = step.sourceModel.attribute(parts[1], of: parts[0]) != nil
                    drops.append(Drop(name: name, kind: isAttribute ? "attribute" : "relationship",
                                      count: try store.map { try values(of: parts[1], entity: parts[0], in: $0, layout: step.sourceLayout) }))
                }
            }
            let found = step.written?.isFound == true
            hops.append(Hop(name: step.name, from: step.sourceModel.version, to: step.destinationModel.version,
                            kind: step.isInferred ? "inferred" : !step.fusedFrom.isEmpty ? "fused" : found ? "found" : "explicit",
                            mappingModels: step.fusedFrom.isEmpty ? step.written?.mappingModels ?? [] : [],
                            runs: execution.insideSQLite ? "inside SQLite" : "row by row", reason: execution.reason,
                            mappings: mappings, drops: drops, newEntities: step.inferred?.newEntities ?? []))
        }
        return PlanReport(pipeline: pipeline, source: source.map { _ in plan.sourcePath }, sourceVersion: plan.sourceVersion,
                          targetVersion: plan.targetVersion, upToDate: plan.steps.isEmpty, hops: hops)
    }

    /// Rows of `entity` (its own, not its sub-entities').
    static func rows(of entity: String, in db: Database, layout: any StoreLayout) throws -> Int {
        let table = layout.table(of: entity)
        let condition = table.condition(alias: "t").map { " WHERE \($0)" } ?? ""
        return Int(try db.scalarInt("SELECT count(*) FROM \(Database.quote(table.name)) t\(condition)"))
    }

    /// Non-null values of an attribute, or links of a relationship.
    static func values(of property: String, entity: String, in db: Database, layout: any StoreLayout) throws -> Int {
        let q = Database.quote
        let table = layout.table(of: entity)
        let condition = table.condition(alias: "t").map { " AND \($0)" } ?? ""
        if layout.model.attribute(property, of: entity) != nil {
            let column = layout.column(ofAttribute: property, entity: entity)
            return Int(try db.scalarInt("SELECT count(*) FROM \(q(table.name)) t WHERE t.\(q(column)) IS NOT NULL\(condition)"))
        }
        switch layout.storage(ofRelationship: property, entity: entity) {
        case .foreignKey(let owner, let column), .inverseForeignKey(let owner, let column):
            return Int(try db.scalarInt("SELECT count(*) FROM \(q(owner)) WHERE \(q(column)) IS NOT NULL"))
        case .joinTable(let join, _, _):
            return Int(try db.scalarInt("SELECT count(*) FROM \(q(join))"))
        }
    }
}
