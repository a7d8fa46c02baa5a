import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLDocument

/// Turns a pipeline spec into a `Plan`, or fails with the first problem, named by file,
/// line, column and JSON path.
public struct Planner {
    /// The policies registered by the running program.
    public var policies: [PolicySignature]
    /// The functions the running program added to the expression language.
    public var functions: [String: ExpressionFunction]

    public init(policies: [PolicySignature] = [], functions: [String: ExpressionFunction] = [:]) {
        self.policies = policies
        self.functions = functions
    }

    /// Plans `spec`. `source` is the source store opened read-only: a Core Data source's real
    /// table names are read from it, and with a model bundle its version is detected from it.
    public func plan(_ spec: PipelineSpec, source: Database? = nil) throws -> Plan {
        let chain = try spec.models == nil ? fileChain(spec, source: source) : bundleChain(spec, source: source)
        var notices: [String] = []
        if spec.models != nil, spec.source.layout == .coredata, let source, let note = Self.keptModelNotice(source, spec: spec, model: chain.models[chain.hops.first?.from ?? 0]) {
            notices.append(note)
        }
        let sourceKind = spec.source.layout
        let destinationKind = spec.destination.layout
        let first = chain.hops.first?.from ?? 0
        var sourceLayout: any StoreLayout
        do {
            sourceLayout = try sourceKind.layout(for: chain.models[first], store: sourceKind == .coredata ? source : nil)
        } catch var error as CoreDataStoreError where spec.source.version != nil && source != nil {
            error.message += GivenSourceVersion.hint(source!, given: spec.source.version!, versions: chain.versions, layout: sourceKind)
            throw error
        }
        var steps: [StepPlan] = []
        var removedByAny = Set<String>()
        var topLevelUsed = Set<Int>()
        for (index, hop) in chain.hops.enumerated() {
            let from = chain.models[hop.from], to = chain.models[hop.to]
            let isLast = index == chain.hops.count - 1
            // Intermediate stores use the destination's layout: only the ends are the user's.
            let destinationLayout = isLast ? try finalLayout(spec, model: to, kind: destinationKind, source: sourceKind == .coredata ? source : nil,
                                                             sourceModel: chain.models[first])
                : destinationKind.layout(for: to)
            var planned: (mappings: [MappingPlan], targets: [TargetPlan])
            var inferred: InferredStep?
            let written: StepSpec
            if let step = hop.step {
                written = try mappingModelStep(step, from: from, to: to)
                planned = try planMappings(written, source: from, destination: to)
            } else {
                let step = try inferredStep(spec, from: from, to: to)
                written = try inferredMappings(spec, step, from: from, to: to)
                planned = try planMappings(written, source: from, destination: to)
                inferred = step
            }
            for i in planned.mappings.indices where spec.options.unreadable != .reject {
                // The pipeline's option, for every mapping that does not say otherwise.
                let said = written.mappings.first { $0.name == planned.mappings[i].name }?.unreadable.all
                if said == nil { planned.mappings[i].unreadable.all = spec.options.unreadable }
            }
            var step = StepPlan(index: index, name: hop.step?.name ?? "\(from.version) to \(to.version) (inferred)",
                                sourceModel: from, destinationModel: to, sourceLayout: sourceLayout,
                                destinationLayout: destinationLayout, mappings: planned.mappings, targets: planned.targets,
                                isInferred: hop.step == nil, inferred: inferred)
            step.written = written
            let removed = step.removed
            removedByAny.formUnion(removed)
            for (i, entry) in spec.drop.enumerated() {
                let covered = removed.filter { DropEntry.covers(entry.name, $0, model: from) }
                if !covered.isEmpty { topLevelUsed.insert(i) }
                for name in covered { step.declaredDrops[name] = "as the pipeline's \"drop\" says" }
            }
            for entry in hop.step?.drop ?? [] {
                let covered = removed.filter { DropEntry.covers(entry.name, $0, model: from) }
                guard !covered.isEmpty else {
                    throw entry.cursor.error("'\(entry.name)' is no entity or property step \(step.name) leaves unread"
                        + (DropEntry.names(entry.name, in: from) ? "" : DropEntry.suggestion(for: entry.name, in: [from]))
                        + (removed.isEmpty ? " (it reads every one)" : "; it leaves: " + removed.joined(separator: ", ")))
                }
                for name in covered { step.declaredDrops[name] = "as the step's \"drop\" says" }
            }
            if let model = hop.step?.mappingModel {
                // Core Data's own migration drops what the mapping model does not map: it is the declaration.
                for name in removed where step.declaredDrops[name] == nil {
                    step.declaredDrops[name] = "as mapping model \(URL(fileURLWithPath: model).lastPathComponent) leaves it unmapped"
                }
            }
            steps.append(step)
            sourceLayout = destinationLayout
        }
        // One pipeline serves stores of every version: an entry for a hop this store does not
        // take is a note; one that names nothing of any version is a mistake. Without a
        // bundle or a source model, each store brings its own model: the versions are those
        // of the archive, which no store shows whole, so an entry its own model lacks is a
        // note too (a bundle-less archive: the V1 stores' removed property, named once).
        var notes = chain.notes
        let versionsKnown = spec.models != nil || spec.source.model != nil
        for (i, entry) in spec.drop.enumerated() where !topLevelUsed.contains(i) {
            guard chain.versions.contains(where: { DropEntry.names(entry.name, in: $0) }) || !versionsKnown else {
                let removed = removedByAny.sorted()
                throw entry.cursor.error("'\(entry.name)' is no entity or property of any model version of the pipeline ("
                    + chain.versions.map(\.version).joined(separator: ", ") + ")" + DropEntry.suggestion(for: entry.name, in: chain.versions)
                    + "; the steps of this run leave unread: "
                    + (removed.isEmpty ? "nothing" : removed.joined(separator: ", ")))
            }
            let path = ([chain.models[first].version] + chain.hops.map { chain.models[$0.to].version }).joined(separator: " → ")
            if chain.versions.contains(where: { DropEntry.names(entry.name, in: $0) }) {
                notes.append("\"drop\" entry '\(entry.name)' applies to no step of this store's path (\(path)): nothing of it to drop")
            } else {
                notes.append("\"drop\" entry '\(entry.name)' names nothing of this store's own model or the destination's (\(path)): nothing of it to drop")
            }
        }
        // A "danglingLinks" entry names a relationship of some version, as a "drop" entry does.
        for (name, rule) in spec.danglingLinks.relationships.sorted(by: { $0.key < $1.key }) {
            let parts = name.split(separator: ".").map(String.init)
            guard chain.versions.contains(where: { $0.relationship(parts[1], of: parts[0]) != nil }) else {
                throw rule.cursor.error("'\(name)' is no relationship of any model version of the pipeline ("
                    + chain.versions.map(\.version).joined(separator: ", ") + ")")
            }
        }
        var plan = Plan(spec: spec, steps: steps, sourceVersion: chain.models[first].version,
                        targetVersion: chain.models[chain.hops.last?.to ?? 0].version, modelFiles: chain.files)
        plan.notes = notices + notes
        let fusion = try StepFusion.fuse(steps, planner: self)
        plan.fusedSteps = fusion.steps.count < steps.count ? fusion.steps : nil
        plan.fusionRefusals = fusion.refusals
        return plan
    }

    /// Model versions and the hops between them: `from`/`to` index `models`.
    struct Chain {
        var models: [Model]
        var hops: [(from: Int, to: Int, step: StepSpec?)]
        var files: [String]
        /// Every version the pipeline knows, whichever this store's path takes.
        var versions: [Model] = []
        /// What the run's summary should say about the chain (a step this store does not take).
        var notes: [String] = []
    }

    /// Without a bundle: the source's model file, then each step's. Given the store, the
    /// chain starts at the version its schema matches (`VersionDetector`): a store already
    /// at a later version of the chain skips the hops before it, one at the last is up to
    /// date. A store no version matches starts at the source's model, whose checks then
    /// say what is missing.
    ///
    /// A model may come from a store instead (`StoreModels`): a Core Data source without a
    /// `model` starts from the model kept in it, a destination's `modelFrom` ends at the model
    /// kept in that store. Without steps, one inferred hop goes between them; none when the
    /// source is already at the target (same version hashes).
    func fileChain(_ spec: PipelineSpec, source: Database?) throws -> Chain {
        var loaded: [String: Model] = [:]
        func model(_ path: String, cursor: JSONCursor) throws -> Model {
            if let m = loaded[path] { return m }
            if path == spec.destination.modelFrom {
                let m = try referenceStoreModel(spec)
                loaded[path] = m
                return m
            }
            guard FileManager.default.fileExists(atPath: path) else {
                throw cursor.error("model file not found: \(path)")
            }
            let m = try ModelFile.load(path: path)
            loaded[path] = m
            return m
        }
        // Model files are part of the run's identity; a store's kept model is not a file of the pipeline.
        var chain: Chain
        if let path = spec.source.model {
            chain = Chain(models: [try model(path, cursor: spec.source.modelCursor!)], hops: [], files: [path])
        } else {
            chain = Chain(models: [try sourceStoreModel(spec, source: source)], hops: [], files: [])
        }
        for step in spec.steps {
            chain.models.append(try model(step.to, cursor: step.toCursor ?? spec.destination.modelCursor ?? spec.destination.modelFromCursor!))
            if step.to != spec.destination.modelFrom { chain.files.append(step.to) }
            chain.hops.append((chain.models.count - 2, chain.models.count - 1, step))
        }
        if spec.steps.isEmpty {
            let target = try model(spec.destination.model ?? spec.destination.modelFrom!,
                                   cursor: spec.destination.modelCursor ?? spec.destination.modelFromCursor!)
            if let path = spec.destination.model { chain.files.append(path) }
            if Self.sameVersion(chain.models[0], target) {
                chain.models = [target]
            } else {
                chain.models.append(target)
                chain.hops.append((0, 1, nil))
            }
        }
        chain.versions = chain.models
        if let source, spec.source.layout == .plain, chain.models.count > 1,
           let detected = try? VersionDetector.detect(store: source, versions: chain.models, layout: .plain),
           let start = chain.models.lastIndex(where: { $0.version == detected.version }), start > 0 {
            chain.hops.removeFirst(start)
            if chain.hops.isEmpty { chain.models = [chain.models[start]] }
        }
        return chain
    }

    /// With a bundle: from the source's version (given or detected) to the destination's,
    /// hop by hop; a hop is the pipeline's explicit step from that version when there is
    /// one, an inferred step to the next version otherwise.
    func bundleChain(_ spec: PipelineSpec, source: Database?) throws -> Chain {
        if !spec.mergedModels.isEmpty { return try mergedChain(spec, source: source) }
        let bundle: ModelBundle
        do {
            bundle = try ModelBundle.load(path: spec.models!)
        } catch let error as DocumentError {
            throw error
        } catch {
            throw spec.modelsCursor!.error("cannot read the model bundle \(spec.models!): \(error)")
        }
        let names = bundle.names
        func index(of version: String, cursor: JSONCursor?) throws -> Int {
            if let i = names.firstIndex(of: version) { return i }
            let hint = closestName(to: version, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw (cursor ?? spec.modelsCursor!).error("unknown version '\(version)' in \(spec.models!)\(hint); versions: " + names.joined(separator: ", "))
        }
        guard let targetName = spec.destination.version ?? bundle.currentVersion else {
            throw spec.destination.cursor.error("the bundle names no current version: give the destination a \"version\"")
        }
        let target = try index(of: targetName, cursor: spec.destination.versionCursor)
        let start: Int
        if let version = spec.source.version {
            start = try index(of: version, cursor: spec.source.versionCursor)
        } else {
            guard let source else {
                throw spec.source.cursor.error("the source's version cannot be detected without its store")
            }
            let detected: DetectedVersion
            do {
                detected = try VersionDetector.detect(store: source, versions: bundle.versions, layout: spec.source.layout)
            } catch var error as VersionDetectionError where !bundle.unreadable.isEmpty {
                error.message += " (not compared: the versions that cannot be read, "
                    + bundle.unreadable.keys.sorted().joined(separator: ", ") + ")"
                throw error
            }
            start = try index(of: detected.version, cursor: nil)
        }
        var explicit: [Int: (to: Int, step: StepSpec)] = [:]
        for step in spec.steps {
            let from = try index(of: step.from!, cursor: step.cursor)
            let to = try index(of: step.to, cursor: step.toCursor)
            guard to != from else { throw step.cursor.error("a step must go to another version: \(step.from!) → \(step.to)") }
            guard explicit[from] == nil else { throw step.cursor.error("two steps start from version \(step.from!)") }
            // No store's path to the target takes a step that goes past it (up or down).
            guard to > from ? to <= target : to >= target else {
                throw step.cursor.error("step \(step.name) goes \(step.from!) → \(step.to), past the target version \(names[target]): "
                    + "no store would run it. Remove the step, or make \(step.to) (or a\(to > from ? " later" : "n earlier") version) the destination's \"version\"")
            }
            explicit[from] = (to, step)
        }
        // A mapping model is part of the pipeline: editing it changes the run's identity.
        let mappingModels = spec.steps.flatMap(\.mappingModels).map(XCMappingModel.xmlFile(of:))
        var hops: [(from: Int, to: Int, step: StepSpec?)] = []
        var found = FoundMappingModels(spec: spec, bundle: bundle)
        var k = start
        // A store at a later version goes down only through the steps the pipeline names (a
        // downgrade mapping model, `DowngradeHops`); never inferred, never found.
        if start > target { hops = try DowngradeHops.hops(from: start, to: target, explicit: explicit, names: names, spec: spec) }
        while k < target {
            if let (to, step) = explicit[k], to <= target {
                hops.append((k, to, step))
                k = to
            } else if let (to, step) = try found.step(from: k, upTo: target) {
                hops.append((k, to, step))
                k = to
            } else {
                hops.append((k, k + 1, nil))
                k += 1
            }
        }
        // One pipeline serves stores of every version: a step this store's path does not take is a note.
        let path = ([start] + hops.map(\.to)).map { names[$0] }.joined(separator: " → ")
        let notOnPath = spec.steps.filter { step in !hops.contains { $0.step?.cursor.path == step.cursor.path } }.map { step in
            "step \(step.name) (\(step.from!) → \(step.to)) is not on this store's path (\(path)): not run"
        }
        // Only the versions the run passes through are needed: one that cannot be read
        // refuses the run here, with its own file:line; the others are never looked at.
        let used = hops.isEmpty ? [start] : [hops[0].from] + hops.map(\.to)
        let foundFiles = hops.compactMap(\.step).filter(\.isFound).flatMap(\.mappingModels).map(XCMappingModel.xmlFile(of:))
        var chain = Chain(models: [], hops: [], files: bundleFiles(spec.models!) + mappingModels + foundFiles, versions: bundle.versions,
                          notes: notOnPath)
        for i in used {
            do {
                chain.models.append(try bundle.model(named: names[i])!)
            } catch let error as DocumentError {
                let hop = hops.first { $0.from == i || $0.to == i }.map { " (hop \(names[$0.from]) → \(names[$0.to]))" } ?? ""
                throw DocumentError(file: error.file, line: error.line, column: error.column, path: error.path,
                                    message: "version \(names[i]) of \(spec.models!) is needed by this run\(hop) but cannot be read: \(error.message)")
            }
        }
        chain.hops = hops.enumerated().map { (n, hop) in (n, n + 1, hop.step) }
        return chain
    }

    /// With several bundles merged into one model: every version is a combination of one
    /// version of each bundle ("App 2 + Sync 3"). From the source's (given or detected) to
    /// the destination's (by default each bundle's current version), one inferred hop per
    /// version of each bundle in turn: the first bundle's versions, then the next one's.
    func mergedChain(_ spec: PipelineSpec, source: Database?) throws -> Chain {
        let paths = [spec.models!] + spec.mergedModels
        let bundles: [ModelBundle] = try paths.map { path in
            do {
                return try ModelBundle.load(path: path)
            } catch let error as DocumentError {
                throw error
            } catch {
                throw spec.modelsCursor!.error("cannot read the model bundle \(path): \(error)")
            }
        }
        let combinations: [(parts: [Int], model: Model)]
        do {
            combinations = try MergedModel.combinations(bundles)
        } catch {
            throw spec.modelsCursor!.error("the bundles cannot be merged: \(error)")
        }
        let names = combinations.map(\.model.version)
        func parts(of version: String, cursor: JSONCursor?) throws -> [Int] {
            if let found = combinations.first(where: { $0.model.version == version }) { return found.parts }
            let hint = closestName(to: version, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw (cursor ?? spec.modelsCursor!).error("unknown merged version '\(version)'\(hint): name one version of each bundle, "
                + "joined by \" + \" (\(bundles.map { $0.versions.map(\.version).joined(separator: "|") }.joined(separator: " + ")))")
        }
        let current = bundles.compactMap(\.currentVersion)
        guard let targetName = spec.destination.version ?? (current.count == bundles.count ? MergedModel.name(current) : nil) else {
            throw spec.destination.cursor.error("a bundle names no current version: give the destination a \"version\"")
        }
        let target = try parts(of: targetName, cursor: spec.destination.versionCursor)
        var position: [Int]
        if let version = spec.source.version {
            position = try parts(of: version, cursor: spec.source.versionCursor)
        } else {
            guard let source else { throw spec.source.cursor.error("the source's version cannot be detected without its store") }
            let detected = try VersionDetector.detect(store: source, versions: combinations.map(\.model),
                                                      layout: spec.source.layout)
            position = try parts(of: detected.version, cursor: nil)
        }
        for (b, bundle) in bundles.enumerated() where position[b] > target[b] {
            throw spec.destination.cursor.error("the source store is at version \(bundle.versions[position[b]].version) of \(paths[b]), "
                + "later than the target \(bundle.versions[target[b]].version): etl upgrades, it does not downgrade")
        }
        func model(_ parts: [Int]) -> Model { combinations.first { $0.parts == parts }!.model }
        var chain = Chain(models: [model(position)], hops: [], files: paths.flatMap(bundleFiles), versions: combinations.map(\.model))
        for b in bundles.indices {
            while position[b] < target[b] {
                position[b] += 1
                chain.models.append(model(position))
                chain.hops.append((chain.models.count - 2, chain.models.count - 1, nil))
            }
        }
        return chain
    }

    /// The files of a bundle that define its versions.
    func bundleFiles(_ path: String) -> [String] {
        let fm = FileManager.default
        let versions = ((try? fm.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        return [path + "/.xccurrentversion"] + versions.map { "\(path)/\($0)/contents" }
    }

    /// The destination's layout: with a template, its real names, table definitions and metadata.
    /// A Core Data destination of a Core Data source keeps the source's store UUID and its
    /// metadata keys other than the model keys (Core Data's own migration does the same).
    /// Entities the source store's hashes prove and the migration leaves unchanged keep the
    /// hash Core Data recorded for them, where it cannot be computed (a derived attribute).
    func finalLayout(_ spec: PipelineSpec, model: Model, kind: LayoutKind, source: Database?, sourceModel: Model) throws -> any StoreLayout {
        // Before any row is read: a derivation whose triggers etl cannot write (facts §5).
        if kind == .coredata, let refusal = CoreDataLayout.derivationRefusal(of: model) { throw spec.destination.cursor.error(refusal) }
        let carried = try source.flatMap { db in try db.table(named: "Z_METADATA") == nil ? nil : try CoreDataMetadata.read(db) }
        var recorded = carried.map { VersionHashes.recordedHashes(in: $0, storeModel: sourceModel, for: model) } ?? [:]
        // A target taken from a store (`modelFrom`): that store's hashes are Core Data's own
        // for this very model (its kept model agreed with every one that can be computed).
        recorded.merge(referenceStoreHashes(spec)) { source, _ in source }
        guard let template = spec.destination.template else {
            guard kind == .coredata else { return kind.layout(for: model) }
            var layout = CoreDataLayout(model: model)
            // A self-referencing many-to-many's table as the source store lays it out (no rule
            // of the model gives Core Data's choice: facts §1.2 b); with a template, the template's.
            // The source's indexes on what survives the hop, as Core Data keeps them (facts §4.1).
            if let source, carried != nil, let sourceLayout = try? CoreDataLayout(model: sourceModel, store: source) {
                layout.adoptSelfReferencingJoins(from: sourceLayout)
                try layout.keepIndexes(of: source, laidOutAs: sourceLayout)
            }
            layout.recordedHashes = recorded
            layout.carried = carried
            layout.storeUUID = spec.destination.newStoreUUID ? nil : carried?.storeUUID
            do {
                _ = try layout.versionHashes()
            } catch {
                throw spec.destination.cursor.error("\(error)")
            }
            return layout
        }
        guard FileManager.default.fileExists(atPath: template) else {
            throw spec.destination.templateCursor!.error("template store not found: \(template)")
        }
        do {
            let db = try Database(path: template, mode: .readOnly)
            let metadata = try CoreDataMetadata.read(db)
            var layout = try CoreDataLayout(model: model, store: db, template: metadata)
            layout.recordedHashes = recorded
            layout.carried = carried
            layout.storeUUID = spec.destination.newStoreUUID ? nil : carried?.storeUUID
            _ = try layout.versionHashes()
            let schema = try db.rows("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid")
                .compactMap { row -> String? in if case .text(let sql) = row[0] { return sql } else { return nil } }
            return TemplatedLayout(base: layout, schema: schema)
        } catch let error as DocumentError {
            throw error
        } catch {
            throw spec.destination.templateCursor!.error("template store \(template) does not fit model \(model.version): \(error)")
        }
    }

    /// The lightweight step between two versions, refused when it cannot be inferred or
    /// when it holds a likely rename the pipeline does not list in `"drop"`.
    func inferredStep(_ spec: PipelineSpec, from: Model, to: Model) throws -> InferredStep {
        let inferred: InferredStep
        do {
            inferred = try InferredMapping.infer(from: from, to: to)
        } catch let error as InferredMappingError {
            throw (spec.modelsCursor ?? spec.destination.cursor).error(
                "version \(from.version) → \(to.version) cannot be inferred: \(error.problems.map { "\($0.entity)\($0.property.map { ".\($0)" } ?? ""): \($0.message)" }.joined(separator: "; ")). "
                + "Add an explicit step for this hop to the pipeline's \"steps\", for example:\n"
                + Self.explicitStep(from: from.version, to: to.version, mappings: error.suggestedMappings))
        }
        let declared = Set(spec.drop.map(\.name))
        // Core Data's lightweight migration would drop the values and add an empty attribute:
        // the commonest way people lose data with it. Refused unless the removal is declared.
        if let rename = inferred.likelyRenames.first(where: { !declared.contains("\($0.sourceEntity).\($0.removed)") }) {
            throw (spec.modelsCursor ?? spec.destination.cursor).error(
                "version \(from.version) → \(to.version) removes \(rename.sourceEntity).\(rename.removed) and adds \(rename.entity).\(rename.added) "
                + "of the same type (\(rename.type.rawValue)) without a renaming identifier: inferred, every value of \(rename.removed) would be lost. "
                + "If it is a rename, either give \(rename.entity).\(rename.added) the renaming identifier '\(rename.removed)' in model \(to.version) "
                + "(Xcode: Data Model inspector, Versioning, Renaming ID; a model file: \"renamedFrom\": \"\(rename.removed)\"), "
                + "or add this explicit step to the pipeline's \"steps\":\n"
                + Self.explicitStep(from: from.version, to: to.version, mappings: rename.mappings) + "\n"
                + "If the values are to go, say so: " + PipelineWriter.member(PipelineFormat.Top.drop, .list([.string("\(rename.sourceEntity).\(rename.removed)")], .inline)))
        }
        return inferred
    }

    /// A bundle pipeline's step written out, for the user to add to `"steps"`: its versions
    /// and its mappings, each from the start of a line.
    static func explicitStep(from: String, to: String, mappings: [PipelineValue]) -> String {
        typealias Step = PipelineFormat.Step
        return PipelineWriter.json(.members([Step.from: .string(from), Step.to: .string(to), Step.mappings: .list(mappings, .lines(indent: ""))]))
    }

    /// A lightweight step as mapping plans: every attribute and relationship the inference
    /// carries over becomes the expression a user would have written.
    func inferredMappings(_ spec: PipelineSpec, _ inferred: InferredStep, from: Model, to: Model) throws -> StepSpec {
        let origin = spec.modelsCursor ?? spec.destination.cursor
        func expression(_ syntax: Syntax, _ what: String) -> ExpressionSpec {
            ExpressionSpec(text: Printer.print(syntax), cursor: JSONCursor(node: origin.node, path: "\(origin.path) (inferred \(from.version) → \(to.version): \(what))", file: origin.file))
        }
        var step = StepSpec(name: "", from: from.version, to: to.version, toCursor: nil, mappings: [], cursor: origin)
        for m in inferred.mappings {
            var attributes: [(name: String, expression: ExpressionSpec)] = []
            for a in m.attributes {
                switch a.value {
                case .source(let name): attributes.append((a.destination, expression(.source(name), "\(m.destination).\(a.destination)")))
                case .sourceOrDefault(let name, let value):
                    attributes.append((a.destination, expression(.call("coalesce", .source(name), literal(value)), "\(m.destination).\(a.destination)")))
                case .defaultValue, .null: break  // unmapped attributes get the model's default, or null
                }
            }
            var relationships: [(name: String, expression: ExpressionSpec)] = []
            for r in m.relationships {
                // Rows of several mappings (the sub-entities of a hierarchy): a to-many links those of
                // each, a to-one the one found.
                let lookups = r.mappings.map { Syntax.call(r.isToMany ? "destinations" : "destination", .string($0), .source(r.source)) }
                let value = lookups.count == 1 ? lookups[0] : .call(r.isToMany ? "union" : "coalesce", lookups)
                relationships.append((r.destination, expression(value, "\(m.destination).\(r.destination)")))
            }
            step.mappings.append(MappingSpec(name: m.name, source: m.source, destination: m.destination, filter: nil,
                                             attributes: attributes, relationships: relationships, uniqueBy: nil, forEach: nil,
                                             policy: nil, cursor: origin, sourceCursor: origin, destinationCursor: origin, policyCursor: nil))
        }
        return step
    }

    func literal(_ value: SQLValue) -> Syntax {
        switch value {
        case .null, .blob: return .null
        case .integer(let i): return .literal(.integer(i))
        case .real(let d): return .literal(.double(d))
        case .text(let t): return .string(t)
        }
    }

    func planMappings(_ step: StepSpec, source: Model, destination: Model) throws -> (mappings: [MappingPlan], targets: [TargetPlan]) {
        var signatures: [String: MappingSignature] = [:]
        // Targets: each mapping's own entity first (same index), then its policy's extra entities.
        var targets: [TargetPlan] = []
        var extra: [(mapping: MappingID, entity: String, name: String)] = []
        for (index, m) in step.mappings.enumerated() {
            try checkEntity(m.source, in: source, cursor: m.sourceCursor, side: "source")
            try checkEntity(m.destination, in: destination, cursor: m.destinationCursor, side: "destination")
            if destination.entity(named: m.destination)!.isAbstract {
                throw m.destinationCursor.error("entity \(m.destination) is abstract in model \(destination.version): map to one of its sub-entities")
            }
            signatures[m.name] = MappingSignature(sourceEntity: m.source, destinationEntity: m.destination)
            guard let name = m.policy else { continue }
            guard let policy = policies.first(where: { $0.name == name }) else {
                let known = policies.isEmpty ? "no policies are registered in this program (a program that links the ETL library registers them)"
                    : "registered policies: " + policies.map(\.name).sorted().joined(separator: ", ")
                throw (m.policyCursor ?? m.cursor).error("unknown policy '\(name)': \(known)")
            }
            // Each entity once: an entity listed twice is still one target (one name for destination()).
            var created: Set<String> = []
            for entity in policy.creates where entity != m.destination && created.insert(entity).inserted {
                guard let e = destination.entity(named: entity), !e.isAbstract else {
                    throw (m.policyCursor ?? m.cursor).error("policy '\(name)' creates rows of '\(entity)', which is not a concrete entity of model \(destination.version)")
                }
                signatures["\(m.name)/\(entity)"] = MappingSignature(sourceEntity: m.source, destinationEntity: entity)
                extra.append((MappingID(index), entity, "\(m.name)/\(entity)"))
            }
        }
        // A target's name is what destination() and the summary call it: one name, one target.
        for e in extra {
            if let clash = step.mappings.first(where: { $0.name == e.name }) {
                let maker = step.mappings[e.mapping.index]
                throw clash.cursor.error("mapping name '\(e.name)' is also the name of the \(e.entity) rows that policy '\(maker.policy!)' "
                                         + "of mapping \(maker.name) creates, so destination('\(e.name)', …) would name both: rename the mapping")
            }
        }
        var mappings = try step.mappings.map { try planMapping($0, source: source, destination: destination, signatures: signatures) }
        for (index, m) in mappings.enumerated() {
            mappings[index].targets = [TargetID(targets.count)]
            targets.append(TargetPlan(name: m.name, mapping: MappingID(index), entity: m.destinationEntity, attributes: m.attributes))
        }
        for e in extra {
            mappings[e.mapping].targets.append(TargetID(targets.count))
            let attributes = destination.attributes(of: e.entity).map {
                AttributeAssignment(attribute: $0, source: .constant($0.defaultValue ?? .null))
            }
            targets.append(TargetPlan(name: e.name, mapping: e.mapping, entity: e.entity, attributes: attributes))
        }
        return (mappings, targets)
    }

    func checkEntity(_ name: String, in model: Model, cursor: JSONCursor, side: String) throws {
        guard model.entity(named: name) == nil else { return }
        let hint = closestName(to: name, among: model.entities.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw cursor.error("unknown \(side) entity '\(name)' in model \(model.version)\(hint)")
    }

    func planMapping(_ m: MappingSpec, source: Model, destination: Model, signatures: [String: MappingSignature]) throws -> MappingPlan {
        let createSlots = SlotTable()
        var scope = ExpressionScope(sourceModel: source, source: m.source, item: nil, mappings: signatures, allowsDestinationLookups: false)
        scope.destinationModel = destination
        scope.functions = functions

        var forEach: CompiledExpression?
        var itemEntity: String?
        if let spec = m.forEach {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            guard case .sourceRows(let entity) = compiled.type else {
                throw spec.cursor.error("forEach must be a to-many relationship of the source (like $source.users), but this is \(compiled.type)")
            }
            forEach = compiled
            itemEntity = entity
            scope.item = entity
        }
        var filter: CompiledExpression?
        if let spec = m.filter {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            guard ExprType.assignable(compiled.type, to: .boolean) else {
                throw spec.cursor.error("a filter must be a boolean, but this expression is \(compiled.type)")
            }
            filter = compiled
        }
        var uniqueBy: CompiledExpression?
        if let spec = m.uniqueBy {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            switch compiled.type {
            case .sourceRows, .destinationRows, .destinationRow:
                throw spec.cursor.error("uniqueBy must be a single value (an attribute or a row), but this is \(compiled.type)")
            default: uniqueBy = compiled
            }
        }
        let destinationAttributes = destination.attributes(of: m.destination)
        let destinationRelationships = destination.relationships(of: m.destination)
        var given: [String: CompiledExpression] = [:]
        for (name, spec) in m.attributes {
            guard let attribute = destinationAttributes.first(where: { $0.name == name }) else {
                throw unknownProperty(name, kind: "attribute", of: m.destination, known: destinationAttributes.map(\.name),
                                      other: ("relationship", "relationships", destinationRelationships.map(\.name)), cursor: spec.cursor)
            }
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            let expected = ExprType(attribute.type)
            guard ExprType.assignable(compiled.type, to: expected) else {
                throw spec.cursor.error("attribute \(m.destination).\(name) is \(expected), but this expression is \(compiled.type)")
            }
            given[name] = compiled
        }
        let attributes = destinationAttributes.map { attribute in
            AttributeAssignment(attribute: attribute,
                                source: given[attribute.name].map { .expression($0) } ?? .constant(attribute.defaultValue ?? .null))
        }

        let relateSlots = SlotTable()
        var relateScope = scope
        relateScope.allowsDestinationLookups = true
        var relationships: [RelationshipAssignment] = []
        for (name, spec) in m.relationships {
            guard let relationship = destinationRelationships.first(where: { $0.name == name }) else {
                throw unknownProperty(name, kind: "relationship", of: m.destination, known: destinationRelationships.map(\.name),
                                      other: ("attribute", "attributes", destinationAttributes.map(\.name)), cursor: spec.cursor)
            }
            let compiled = try compile(spec, scope: relateScope, slots: relateSlots)
            try checkRelationship(relationship, of: m.destination, type: compiled.type, model: destination, cursor: spec.cursor)
            relationships.append(RelationshipAssignment(relationship: relationship, expression: compiled))
        }
        // A policy reads the source row by name: every attribute and to-one of the entity.
        var policyCreateSlots: [String: Int] = [:], policyRelateSlots: [String: Int] = [:]
        if m.policy != nil {
            let names = source.attributes(of: m.source).map(\.name) + source.relationships(of: m.source).filter { !$0.isToMany }.map(\.name)
            for name in names {
                policyCreateSlots[name] = createSlots.slot(for: SourcePath(root: .source, segments: [name]))
                policyRelateSlots[name] = relateSlots.slot(for: SourcePath(root: .source, segments: [name]))
            }
        }
        var unreadable = UnreadableValues(all: m.unreadable.all ?? .reject)
        let sourceAttributes = source.attributes(of: m.source).map(\.name)
        for entry in m.unreadable.byAttribute {
            guard sourceAttributes.contains(entry.name) else {
                let hint = closestName(to: entry.name, among: sourceAttributes).map { " (did you mean '\($0)'?)" } ?? ""
                throw entry.cursor.error("\"unreadable\" names '\(entry.name)', which is no attribute of source entity \(m.source)\(hint)")
            }
            unreadable.byAttribute[entry.name] = entry.action
        }
        var plan = MappingPlan(name: m.name, sourceEntity: m.source, destinationEntity: m.destination,
                               createPaths: createSlots.paths, filter: filter, forEach: forEach, itemEntity: itemEntity,
                               uniqueBy: uniqueBy, attributes: attributes,
                               relatePaths: relateSlots.paths, relationships: relationships,
                               policy: m.policy, policyCreateSlots: policyCreateSlots, policyRelateSlots: policyRelateSlots)
        plan.unreadable = unreadable
        return plan
    }

    /// "unknown attribute 'x' of destination entity E", with where it belongs if it is the
    /// other kind of property, or the closest name.
    func unknownProperty(_ name: String, kind: String, of entity: String, known: [String],
                         other: (kind: String, key: String, names: [String]), cursor: JSONCursor) -> DocumentError {
        let hint = other.names.contains(name) ? " ('\(name)' is \(other.kind == "attribute" ? "an" : "a") \(other.kind): put it under \"\(other.key)\")"
            : closestName(to: name, among: known).map { " (did you mean '\($0)'?)" } ?? ""
        return cursor.error("unknown \(kind) '\(name)' of destination entity \(entity)\(hint)")
    }

    func checkRelationship(_ r: Relationship, of entity: String, type: ExprType, model: Model, cursor: JSONCursor) throws {
        let target: String
        switch type {
        case .null: return
        case .destinationRow(let e): target = e
        case .destinationRows(let e) where r.isToMany: target = e
        case .destinationRows:
            throw cursor.error("relationship \(entity).\(r.name) is to-one, but this expression gives several rows: use destination(…) instead of destinations(…)")
        default:
            throw cursor.error("relationship \(entity).\(r.name) needs destination rows of \(r.destination), made by a mapping: write destination('Mapping', $source…) — this expression is \(type)")
        }
        guard model.lineage(of: target).contains(where: { $0.name == r.destination }) else {
            throw cursor.error("relationship \(entity).\(r.name) points at \(r.destination), but this expression gives rows of \(target)")
        }
    }

    func compile(_ spec: ExpressionSpec, scope: ExpressionScope, slots: SlotTable) throws -> CompiledExpression {
        do {
            return try CompiledExpression.compile(spec.text, scope: scope, slots: slots)
        } catch {
            if spec.isTranslation {
                throw spec.cursor.error("in expression \"\(spec.text)\" (etl's translation of it), at character \(error.column): \(error.message)")
            }
            throw spec.cursor.error("in expression \"\(spec.text)\": \(error.message)", atColumnInString: error.column)
        }
    }
}
