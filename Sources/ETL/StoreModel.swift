import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLEngine

/// The model of an existing store (`etl model from-store`), to start a pipeline from.
///
/// A plain store's schema is read (`PlainModelReader`). A Core Data store's schema does not
/// say its attribute types: its model is the one it keeps in `Z_MODELCACHE` (`ModelCache`),
/// or, given its bundle, the version its schema (and version hashes) match. Given model
/// files or a bundle, a plain store is checked the same way.
public enum StoreModel {
    public static func read(path: String, version: String? = nil, models: [String] = []) throws -> Model {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        let store = try SourceStore(path: path)
        let layout = try SourceSchemaCheck.layout(of: store.database)
        if models.isEmpty {
            let name = version ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            guard layout == .plain else {
                if let cached = try ModelCache.read(store.database, version: name) { return cached }
                throw MigrationError.badSource(path: path, reason: "is a Core Data store that keeps no model of its own "
                    + "(Z_MODELCACHE missing, as before about 2017, or empty), and its tables do not say its attribute types: "
                    + "give the app's model bundle with --models Name.xcdatamodeld, and the version the store is at is written as a JSON model")
            }
            return try PlainModelReader.read(store.database, version: name)
        }
        let versions = try models.count == 1 && models[0].hasSuffix(".xcdatamodeld") ? ModelBundle.load(path: models[0]).versions
            : models.map { try ModelFile.load(path: $0) }
        let detected = try VersionDetector.detect(store: store.database, versions: versions, layout: layout)
        var model = versions.first { $0.version == detected.version }!
        if let version { model.version = version }
        return model
    }
}
