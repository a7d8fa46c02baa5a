import Foundation
import ETLModel
import ETLExpression
import ETLCoreData
import ETLDocument

private typealias Top = PipelineFormat.Top
private typealias Store = PipelineFormat.Store
private typealias Destination = PipelineFormat.Destination
private typealias Step = PipelineFormat.Step
private typealias Mapping = PipelineFormat.Mapping

extension PipelineSpec {
    /// Reads and checks the shape of a pipeline file. Errors name the file, line, column
    /// and JSON path.
    public static func load(path: String) throws -> PipelineSpec {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "$", message: "pipeline file not found")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "$", message: "pipeline file is not readable")
        }
        return try decode(Array(data), file: path)
    }

    public static func decode(_ bytes: [UInt8], file: String) throws -> PipelineSpec {
        let root = try JSONCursor.parse(bytes, file: file)
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let o = try root.object(Top.all)
        let formatCursor = try o.required(Top.format)
        let format = try formatCursor.int()
        guard format == PipelineFormat.version else {
            throw formatCursor.error("unsupported pipeline format \(format); this etl reads format \(PipelineFormat.version)")
        }
        let modelsCursor = o.optional(Top.models)
        // One bundle, or several merged into one model: [ "App.xcdatamodeld", "Sync.xcdatamodeld" ].
        var bundles: [String] = []
        if let modelsCursor {
            if case .array = modelsCursor.node.value {
                bundles = try modelsCursor.array().map { resolve(try $0.nonEmptyString(), folder: folder) }
                guard !bundles.isEmpty else { throw modelsCursor.error("\"models\" lists no bundle") }
            } else {
                bundles = [resolve(try modelsCursor.nonEmptyString(), folder: folder)]
            }
        }
        let models = bundles.first
        var source = try decodeStore(o.required(Top.source), folder: folder, bundle: models != nil)
        var destination = try decodeStore(o.required(Top.destination), folder: folder, bundle: models != nil, isDestination: true)
        if source.layoutCursor == nil {
            if models == nil && source.model == nil {
                // Without a model file or a bundle only a Core Data store, with the model it
                // keeps, can be read; a plain one is refused when opened, saying so.
                source.layout = .coredata
                if destination.layoutCursor == nil { destination.layout = .coredata }
            } else if models != nil {
                // With a model bundle the store says: `reading(sourceLayout:)`, once it is
                // opened. (Model files describe plain stores: a Core Data one is refused,
                // saying to write "layout".)
                source.layoutFromStore = true
            }
        }
        if models == nil {
            // A Core Data store keeps the model that wrote it: a source without a model file
            // uses its own, a destination names a store the new version wrote (`modelFrom`).
            if source.model == nil && source.layout != .coredata {
                throw source.cursor.error("missing required key 'model' (or name a model bundle with a top-level \"models\"; "
                    + "a Core Data source, \"layout\": \"coredata\", uses the model kept in its store)")
            }
            if destination.model == nil && destination.modelFrom == nil {
                throw destination.cursor.error("missing required key 'model' (or \"modelFrom\": a store the app wrote at the target "
                    + "version, whose kept model is the target; or name a model bundle with a top-level \"models\")")
            }
        }
        if let modelFrom = destination.modelFromCursor {
            if models != nil { throw modelFrom.error("with a model bundle, the target is a version of it: leave out \"modelFrom\" or \"models\"") }
            if destination.model != nil { throw modelFrom.error("the target model comes from \"model\" or from \"modelFrom\", not both") }
        }
        if let template = destination.templateCursor, destination.layout != .coredata, !destinationFollowsStore(source, destination) {
            throw template.error(templateNeedsCoreData)
        }
        if let fresh = try o.required(Top.destination).anyObject().optional(Destination.newStoreUUID) {
            guard destination.layout == .coredata || destinationFollowsStore(source, destination) else {
                throw fresh.error(newStoreUUIDNeedsCoreData)
            }
            destination.newStoreUUID = try fresh.bool()
        }
        var options = Options()
        if let oc = o.optional(Top.options) {
            let oo = try oc.object(PipelineFormat.Options.all)
            if let u = oo.optional(PipelineFormat.Options.unreadable) { options.unreadable = try UnreadableAction.decode(u) }
            if let c = oo.optional(PipelineFormat.Options.chunkSize) { options.chunkSize = try c.int(in: 1...1_000_000) }
            if let w = oo.optional(PipelineFormat.Options.workers) { options.workers = try w.int(in: 1...256) }
            if let r = oo.optional(PipelineFormat.Options.maxRejects) { options.maxRejects = try r.int(in: 0...Int.max) }
        }
        var steps: [StepSpec] = []
        if let stepsCursor = o.optional(Top.steps) {
            let stepCursors = try stepsCursor.array()
            for (index, cursor) in stepCursors.enumerated() {
                let isLast = index == stepCursors.count - 1
                steps.append(try decodeStep(cursor, index: index, isLast: isLast, destinationModel: destination.model ?? destination.modelFrom,
                                            folder: folder, bundle: models != nil))
            }
            if models == nil && stepCursors.isEmpty { throw stepsCursor.error("a pipeline needs at least one step") }
        } else if models == nil && source.model != nil && destination.modelFrom == nil {
            throw root.error("missing required key 'steps' (or name a model bundle with \"models\", or take a model from a store, to infer them)")
        }
        if bundles.count > 1, let step = steps.first {
            throw step.cursor.error("explicit steps are not supported with several merged bundles: leave \"steps\" out (every hop is inferred)")
        }
        var spec = PipelineSpec(file: file, bytes: bytes, source: source, destination: destination, options: options,
                                steps: steps, models: models, modelsCursor: modelsCursor)
        spec.mergedModels = Array(bundles.dropFirst())
        // Mapping models found as Core Data finds them: in the bundle's folder unless told.
        if let models, bundles.count == 1 {
            spec.mappingModelsFolder = URL(fileURLWithPath: models).deletingLastPathComponent().path
        }
        if let cursor = o.optional(Top.mappingModels) {
            guard models != nil else { throw cursor.error("\"mappingModels\" is where a bundle's hops find mapping models: it needs a model bundle (\"models\")") }
            guard bundles.count == 1 else { throw cursor.error("\"mappingModels\" is not supported with several merged bundles (every hop is inferred)") }
            spec.mappingModelsCursor = cursor
            if case .bool(let on) = cursor.node.value {
                guard !on else { throw cursor.error("give a folder, or false to look for no mapping model") }
                spec.mappingModelsFolder = nil
            } else {
                let folder = resolve(try cursor.nonEmptyString(), folder: folder)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw cursor.error("no such folder: \(folder)")
                }
                spec.mappingModelsFolder = folder
            }
        }
        if let dropCursor = o.optional(Top.drop) {
            spec.drop = try dropCursor.array().map { (try $0.nonEmptyString(), $0) }
        }
        if let cursor = o.optional(Top.danglingLinks) {
            spec.danglingLinks = try DanglingLinkRules.decode(cursor)
        }
        for kind in UnmodeledTable.Kind.allCases {
            guard let cursor = o.optional(kind.pipelineKey) else { continue }
            let text = try cursor.string()
            guard let action = UnmodeledTableAction(rawValue: text) else {
                throw cursor.error("unknown value '\(text)'; one of: " + UnmodeledTableAction.allCases.map(\.rawValue).joined(separator: ", "))
            }
            spec.unmodeledTables[kind] = action
        }
        return spec
    }

    /// A destination without a `"layout"` takes the source's, which the source store says
    /// when the pipeline does not: what needs Core Data's layout is checked then.
    static func destinationFollowsStore(_ source: StoreSpec, _ destination: StoreSpec) -> Bool {
        source.layoutFromStore && destination.layoutCursor == nil
    }

    static let templateNeedsCoreData = "a template is a Core Data store: set \"layout\": \"coredata\" on the destination"
    static let newStoreUUIDNeedsCoreData = "newStoreUUID is about Core Data's store UUID: set \"layout\": \"coredata\" on the destination"

    static func resolve(_ path: String, folder: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
    }

    static func decodeStore(_ cursor: JSONCursor, folder: String, bundle: Bool, isDestination: Bool = false) throws -> StoreSpec {
        let o = try cursor.object(isDestination ? Destination.all : Store.all)
        let storeCursor = try o.required(Store.store)
        let modelCursor = o.optional(Store.model)
        let versionCursor = o.optional(Store.version)
        if bundle, let modelCursor {
            throw modelCursor.error("with a model bundle, name a version (\"version\": \"v2\") instead of a model file")
        }
        if !bundle, let versionCursor {
            throw versionCursor.error("\"version\" names a version of a model bundle: add a top-level \"models\": \"Name.xcdatamodeld\", or name a model file with \"model\"")
        }
        var layout = LayoutKind.plain
        let layoutCursor = o.optional(Store.layout)
        if let lc = layoutCursor {
            let text = try lc.string()
            guard let kind = LayoutKind(rawValue: text) else {
                throw lc.error("unknown layout '\(text)'; one of: " + LayoutKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            layout = kind
        }
        let templateCursor = o.optional(Store.template)
        let modelFromCursor = o.optional(Destination.modelFrom)
        var spec = StoreSpec(store: resolve(try storeCursor.nonEmptyString(), folder: folder),
                         model: try modelCursor.map { resolve(try $0.nonEmptyString(), folder: folder) },
                         version: try versionCursor?.nonEmptyString(),
                         layout: layout,
                         template: try templateCursor.map { resolve(try $0.nonEmptyString(), folder: folder) },
                         templateCursor: templateCursor,
                         storeCursor: storeCursor, modelCursor: modelCursor, versionCursor: versionCursor, cursor: cursor)
        spec.modelFrom = try modelFromCursor.map { resolve(try $0.nonEmptyString(), folder: folder) }
        spec.modelFromCursor = modelFromCursor
        spec.layoutCursor = layoutCursor
        return spec
    }

    static func decodeStep(_ cursor: JSONCursor, index: Int, isLast: Bool, destinationModel: String?, folder: String,
                           bundle: Bool) throws -> StepSpec {
        let o = try cursor.object(Step.keys(bundle: bundle))
        let drop = try o.optional(Step.drop)?.array().map { (name: try $0.nonEmptyString(), cursor: $0) } ?? []
        let name = try o.optional(Step.name)?.nonEmptyString()
        let toCursor = o.optional(Step.to)
        var from: String?
        var to = destinationModel ?? ""
        if bundle {
            // With a bundle a step is the explicit mapping of one hop, named by its versions.
            from = try o.required(Step.from).nonEmptyString()
            to = try o.required(Step.to).nonEmptyString()
        } else if let toCursor {
            to = resolve(try toCursor.nonEmptyString(), folder: folder)
            if isLast && to != destinationModel {
                throw toCursor.error("the last step must produce the destination's model (\(destinationModel ?? "")); leave 'to' out of the last step")
            }
        } else if !isLast {
            throw cursor.error("missing required key 'to': every step but the last names the model file it produces")
        }
        let stepName = name ?? (bundle ? "\(from!) to \(to)" : "step \(index + 1)")
        if let mappingModelCursor = o.optional(Step.mappingModel) {
            // The mappings are the mapping model's, read once the plan knows the hop's versions.
            if let mappings = o.optional(Step.mappings) {
                throw mappings.error("a step takes its mappings from \"mappingModel\" or from \"mappings\", not both")
            }
            // One mapping model, or several for one hop: Core Data's multi-pass migration.
            let paths: [String]
            if case .array = mappingModelCursor.node.value {
                paths = try mappingModelCursor.array().map { resolve(try $0.nonEmptyString(), folder: folder) }
                guard !paths.isEmpty else { throw mappingModelCursor.error("name at least one mapping model") }
            } else {
                paths = [resolve(try mappingModelCursor.nonEmptyString(), folder: folder)]
            }
            return StepSpec(name: stepName, from: from, to: to, toCursor: toCursor, mappings: [], cursor: cursor,
                            mappingModels: paths, mappingModelCursor: mappingModelCursor, drop: drop)
        }
        let mappingsCursor = try o.required(Step.mappings)
        var mappings: [MappingSpec] = []
        var names: Set<String> = []
        for m in try mappingsCursor.array() {
            let mapping = try decodeMapping(m)
            guard names.insert(mapping.name).inserted else {
                throw m.error("duplicate mapping name '\(mapping.name)' in \(stepName)")
            }
            mappings.append(mapping)
        }
        guard !mappings.isEmpty else { throw mappingsCursor.error("a step needs at least one mapping") }
        return StepSpec(name: stepName, from: from, to: to, toCursor: toCursor, mappings: mappings, cursor: cursor, drop: drop)
    }

    static func decodeMapping(_ cursor: JSONCursor) throws -> MappingSpec {
        let o = try cursor.object(Mapping.all)
        let sourceCursor = try o.required(Mapping.source)
        let destinationCursor = try o.required(Mapping.destination)
        let source = try sourceCursor.nonEmptyString()
        let destination = try destinationCursor.nonEmptyString()
        func expression(_ key: PipelineKey) throws -> ExpressionSpec? {
            guard let c = o.optional(key) else { return nil }
            return ExpressionSpec(text: try c.nonEmptyString(), cursor: c)
        }
        func map(_ key: PipelineKey) throws -> [(name: String, expression: ExpressionSpec)] {
            guard let c = o.optional(key) else { return [] }
            return try c.anyObject().members.map { ($0.key, ExpressionSpec(text: try $0.value.nonEmptyString(), cursor: $0.value)) }
        }
        let policyCursor = o.optional(Mapping.policy)
        var unreadable: (all: UnreadableAction?, byAttribute: [(name: String, action: UnreadableAction, cursor: JSONCursor)]) = (nil, [])
        if let u = o.optional(Mapping.unreadable) {
            if case .object = u.node.value {
                unreadable.byAttribute = try u.anyObject().members.map { ($0.key, try UnreadableAction.decode($0.value), $0.value) }
            } else {
                unreadable.all = try UnreadableAction.decode(u)
            }
        }
        var mapping = MappingSpec(
            name: try o.optional(Mapping.name)?.nonEmptyString() ?? "\(source)To\(destination)",
            source: source, destination: destination,
            filter: try expression(Mapping.filter),
            attributes: try map(Mapping.attributes),
            relationships: try map(Mapping.relationships),
            uniqueBy: try expression(Mapping.uniqueBy),
            forEach: try expression(Mapping.forEach),
            policy: try policyCursor?.nonEmptyString(),
            cursor: cursor, sourceCursor: sourceCursor, destinationCursor: destinationCursor, policyCursor: policyCursor)
        mapping.unreadable = unreadable
        return mapping
    }
}
