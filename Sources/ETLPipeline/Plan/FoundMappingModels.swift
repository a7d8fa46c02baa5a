import Foundation
import ETLModel
import ETLExpression
import ETLCoreData

/// A bundle pipeline's hops without an explicit step, given the mapping model Core Data
/// would find for them: one in the pipeline's mapping models folder (by default the
/// bundle's own) whose archived source and destination models have the version hashes of
/// the hop's versions (`MappingModelCatalog`). From version k, the farthest version up to
/// the target that a mapping model reaches is taken (Core Data maps the store's model to
/// the current one in one go); two mapping models for the same hop are refused, naming
/// both, since Core Data would take either.
struct FoundMappingModels {
    let spec: PipelineSpec
    let bundle: ModelBundle
    private var catalog: MappingModelCatalog?
    private var hashes: [Int: [String: Data]?] = [:]

    init(spec: PipelineSpec, bundle: ModelBundle) {
        self.spec = spec
        self.bundle = bundle
    }

    /// The found step from version `k` (an index of `bundle.names`), and the version it reaches.
    mutating func step(from k: Int, upTo target: Int) throws -> (to: Int, step: StepSpec)? {
        guard let folder = spec.mappingModelsFolder else { return nil }
        if catalog == nil { catalog = MappingModelCatalog.load(folder: folder) }
        guard let catalog, !catalog.entries.isEmpty, let from = model(k) else { return nil }
        for j in stride(from: target, to: k, by: -1) {
            guard let to = model(j) else { continue }
            let paths = catalog.mappingModels(from: from, hashes(k), to: to, hashes(j))
            guard let path = paths.first else { continue }
            let cursor = spec.mappingModelsCursor ?? spec.modelsCursor!
            guard paths.count == 1 else {
                throw cursor.error("\(paths.count) mapping models in \(folder) map version \(from.version) → \(to.version): "
                    + paths.joined(separator: ", ") + ". Core Data would take either; name the one to run, or all of them as the passes of "
                    + "one hop, in an explicit step: { \"from\": \"\(from.version)\", \"to\": \"\(to.version)\", \"mappingModel\": [ … ] }")
            }
            var step = StepSpec(name: "\(from.version) to \(to.version)", from: from.version, to: to.version, toCursor: nil,
                                mappings: [], cursor: cursor, mappingModels: [path], mappingModelCursor: cursor)
            step.isFound = true
            return (j, step)
        }
        return nil
    }

    private func model(_ index: Int) -> Model? {
        try? bundle.model(named: bundle.names[index])
    }

    private mutating func hashes(_ index: Int) -> [String: Data]? {
        if let known = hashes[index] { return known }
        let computed = model(index).flatMap { try? VersionHashes(model: $0).entities }
        hashes[index] = computed
        return computed
    }
}
