import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

/// Models taken from stores instead of model files or a bundle: a Core Data store keeps the
/// model that wrote it (`ModelCache`). A Core Data source without a `model` brings its own; a
/// destination's `modelFrom` names a store the app's new version wrote (a SwiftData app has
/// no model file at all). A kept model is used only when it agrees with the store's own
/// version hashes (`ModelCacheAgreement`): a store whose cache and metadata disagree is not
/// trusted to say what its tables hold.
extension Planner {
    /// The model kept in the source store; its version is named after the store's file.
    func sourceStoreModel(_ spec: PipelineSpec, source: Database?) throws -> Model {
        guard let source else {
            throw spec.source.cursor.error("the source store \(spec.source.store) is needed to plan: with no \"model\", its model is the one kept in it")
        }
        return try keptModel(in: source, path: spec.source.store, cursor: spec.source.storeCursor, role: "source")
    }

    /// The model kept in the destination's `modelFrom` store.
    func referenceStoreModel(_ spec: PipelineSpec) throws -> Model {
        let path = spec.destination.modelFrom!, cursor = spec.destination.modelFromCursor!
        guard FileManager.default.fileExists(atPath: path) else { throw cursor.error("store not found: \(path)") }
        let db: Database
        do {
            db = try Database(path: path, mode: .readOnly)
        } catch {
            throw cursor.error("cannot open \(path): \(error)")
        }
        return try keptModel(in: db, path: path, cursor: cursor, role: "target")
    }

    private func keptModel(in db: Database, path: String, cursor: JSONCursor, role: String) throws -> Model {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let model: Model
        do {
            guard let kept = try ModelCache.read(db, version: name) else {
                throw cursor.error("\(path) keeps no model of its own (no Z_MODELCACHE, as in stores written before about 2017, or an empty one): "
                    + "name the \(role)'s model with \"model\", or its bundle with a top-level \"models\"")
            }
            model = kept
        } catch let error as DocumentError {
            throw error
        } catch {
            throw cursor.error("the \(role)'s model kept in \(path) cannot be read: \(error)")
        }
        let metadata: CoreDataMetadata
        do {
            metadata = try CoreDataMetadata.read(db)
        } catch {
            throw cursor.error("\(error)")
        }
        let agreement = ModelCacheAgreement.compare(model, with: metadata)
        guard agreement.agrees else {
            throw cursor.error("the model kept in \(path) (Z_MODELCACHE) \(agreement.summary): it is not the model the store's metadata "
                + "describes; name the \(role)'s model with \"model\", or its bundle with \"models\"")
        }
        return model
    }

    /// The version hashes of the destination's `modelFrom` store (none without one): for the
    /// entities whose hash cannot be computed (a derived attribute), the hash Core Data wrote.
    func referenceStoreHashes(_ spec: PipelineSpec) -> [String: Data] {
        guard let path = spec.destination.modelFrom, let db = try? Database(path: path, mode: .readOnly),
              let metadata = try? CoreDataMetadata.read(db) else { return [:] }
        return metadata.versionHashes
    }

    /// Whether two models are the same version by what Core Data compares: their version
    /// hashes (where computable), else the models themselves.
    static func sameVersion(_ a: Model, _ b: Model) -> Bool {
        if let ha = try? VersionHashes(model: a), let hb = try? VersionHashes(model: b) { return ha.entities == hb.entities }
        var b = b
        b.version = a.version
        return a == b
    }

    /// With a bundle: when the source keeps a model with the detected version's hashes that
    /// still differs from the bundle's version (a default, an index, a renaming identifier:
    /// what the hashes do not cover), a sentence saying so. The bundle's version is used.
    static func keptModelNotice(_ source: Database, spec: PipelineSpec, model: Model) -> String? {
        guard let kept = try? ModelCache.read(source, version: model.version), sameVersion(kept, model) else { return nil }
        let differing = normalized(kept).entities.filter { entity in normalized(model).entities.first { $0.name == entity.name } != entity }.map(\.name)
        guard !differing.isEmpty else { return nil }
        return "the model kept in \(spec.source.store) (Z_MODELCACHE) has the version hashes of \(model.version) but differs from the bundle's "
            + "in \(differing.joined(separator: ", ")) (settings the hashes do not cover: defaults, indexes, renaming identifiers): the bundle's is used"
    }

    /// The model with entities and their properties in name order, for comparing models
    /// whose files list them in different orders.
    static func normalized(_ model: Model) -> Model {
        var model = model
        model.version = ""
        model.versionIdentifiers.sort()
        model.entities.sort { $0.name < $1.name }
        for i in model.entities.indices {
            model.entities[i].attributes.sort { $0.name < $1.name }
            model.entities[i].relationships.sort { $0.name < $1.name }
        }
        return model
    }
}
