import ETLModel
import ETLExpression
import ETLCoreData

extension Planner {
    /// A bundle step that names an Xcode mapping model, `{ "from": "V2", "to": "V3",
    /// "mappingModel": "V2toV3.xcmappingmodel" }`: its entity mappings imported against the
    /// hop's two versions, as the step's mappings, each part (filter, attribute,
    /// relationship) at its place in the mapping model (`MappingModelPlace`). So an error the
    /// plan finds in an imported expression names the `xcmapping.xml`, the line of the
    /// property mapping, the entity mapping and the property. `etl mapping show` prints the
    /// same step as JSON (`ImportedStep.json()`), which plans alike.
    ///
    /// Several mapping models for the hop (`"mappingModel": [ "A", "B", "C" ]`) are Core
    /// Data's multi-pass migration: one step holding every pass's mappings, in the order of
    /// the passes, each pass's own named `Mapping (File)` so that its lookups find only the
    /// rows of its pass (`ImportedStep.passes`). Each mapping is checkpointed as it goes, so
    /// a run stopped in a pass resumes in that pass with the passes before it kept; every
    /// pass's rows are made before any links, which reach only rows of their own pass.
    ///
    /// Checked before any row is read: the mapping model was made between the hop's versions
    /// (by version hashes of the models it archives, `XCMappingModel.match`; by the version
    /// names of its recorded model paths where it archives none or their hashes cannot be
    /// computed), every expression translates, and every policy class it names has an etl
    /// policy registered under the class's name.
    func mappingModelStep(_ step: StepSpec, from: Model, to: Model) throws -> StepSpec {
        guard !step.mappingModels.isEmpty, let cursor = step.mappingModelCursor else { return step }
        var passes: [ImportedStep] = []
        for path in step.mappingModels {
            passes.append(try importedPass(path, cursor: cursor, from: from, to: to))
        }
        let imported = passes.count == 1 ? passes[0] : ImportedStep.passes(passes)
        var result = step
        result.mappings = []
        var names: Set<String> = []
        for m in imported.mappings {
            guard names.insert(m.name).inserted else {
                throw m.place.error("duplicate mapping name '\(m.name)' in \(step.name): is a mapping model named twice in \"mappingModel\"?")
            }
            result.mappings.append(Self.mappingSpec(m))
        }
        guard !result.mappings.isEmpty else {
            throw cursor.error("\(step.mappingModels.joined(separator: " + ")) makes no rows (no entity mapping has both a source and a destination "
                + "entity): a step needs at least one mapping")
        }
        return result
    }

    /// An imported entity mapping as the planner takes a mapping: its places as cursors over
    /// the translated text, so the planner's errors name the mapping model's file, line and object.
    static func mappingSpec(_ m: ImportedMapping) -> MappingSpec {
        func cursor(_ place: MappingModelPlace, _ text: String) -> JSONCursor {
            JSONCursor(node: JSONNode(value: .string(text), line: place.line, column: 1), path: place.path, file: place.file)
        }
        func expression(_ text: String, _ place: MappingModelPlace) -> ExpressionSpec {
            ExpressionSpec(text: text, cursor: cursor(place, text), isTranslation: true)
        }
        let at = cursor(m.place, m.name)
        return MappingSpec(name: m.name, source: m.source, destination: m.destination,
                           filter: m.filter.map { expression($0, m.filterPlace) },
                           attributes: m.attributes.map { ($0.property, expression($0.expression, $0.place)) },
                           relationships: m.relationships.map { ($0.property, expression($0.expression, $0.place)) },
                           uniqueBy: nil, forEach: nil, policy: m.policy,
                           cursor: at, sourceCursor: at, destinationCursor: at, policyCursor: m.policy.map { cursor(m.place, $0) })
    }

    /// One mapping model of the step, checked against the hop and imported.
    private func importedPass(_ path: String, cursor: JSONCursor, from: Model, to: Model) throws -> ImportedStep {
        let mapping = try XCMappingModel.load(path: path)
        for (isSource, version) in [(true, from), (false, to)] {
            let (side, recorded) = isSource ? ("source", mapping.sourceModelPath) : ("destination", mapping.destinationModelPath)
            switch mapping.match(source: isSource, with: version) {
            case .sameHashes:
                continue
            case .differs(let entity, let reason):
                throw cursor.error("\(path) was made for \(mapping.sourceVersion) → \(mapping.destinationVersion), not for this step's "
                    + "\(from.version) → \(to.version): the \(side) model it archives (\(recorded)) differs from version \(version.version) "
                    + "in entity \(entity): \(reason). Name the mapping model of this hop, or remake it in Xcode between the hop's two versions")
            case .unknown:
                guard (isSource ? mapping.sourceVersion : mapping.destinationVersion) == version.version else {
                    throw cursor.error("\(path) maps \(mapping.sourceVersion) → \(mapping.destinationVersion) (its source and destination models: "
                        + "\(mapping.sourceModelPath), \(mapping.destinationModelPath)), but this step goes \(from.version) → \(to.version)")
                }
            }
        }
        let imported = try MappingModelImport.step(mapping, source: from, destination: to)
        for m in imported.mappings {
            guard let name = m.policy, !policies.contains(where: { $0.name == name }) else { continue }
            let className = mapping.entityMappings.first { $0.name == m.name }?.policyClassName ?? name
            let known = policies.isEmpty ? "no policies are registered in this program"
                : "registered policies: " + policies.map(\.name).sorted().joined(separator: ", ")
            throw cursor.error("entity mapping \(m.name) of \(path) needs the migration policy class \(className): no etl policy is registered "
                + "as '\(name)' (\(known)). Port the class to an etl Policy and register it under that name (ETLCommand.main(policies:), see the README)")
        }
        // The functions its value expressions call on the policy class, by selector.
        for m in mapping.entityMappings {
            guard let className = m.policyClassName, let name = m.policyName else { continue }
            for p in m.attributes {
                for selector in p.expression?.entityPolicySelectors ?? [] where functions[MappingModelImport.policyFunctionName(policy: name, selector: selector)] == nil {
                    let has = policies.contains { $0.name == name } ? "the etl policy registered as '\(name)' has no function for it"
                        : "no etl policy is registered as '\(name)'"
                    throw cursor.error("entity mapping \(m.name) of \(path), attribute \(p.name), calls FUNCTION($entityPolicy, \"\(selector)\", …) of the migration "
                        + "policy class \(className): \(has). Register the policy with the function under its selector: "
                        + "Policy(…, functions: [\"\(selector)\": ExpressionFunction([argument types], returns: type) { … }])")
                }
            }
        }
        return imported
    }
}
