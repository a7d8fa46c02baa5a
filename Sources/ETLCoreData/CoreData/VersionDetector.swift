import Foundation
import ETLStore
import ETLModel

/// Says which model version a store is at.
///
///     let found = try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata)
///     found.version   // "v1.1.2"
///
/// Two kinds of evidence:
/// - **schema**: every table and column the version lays out is in the store, and the
///   store's entity tables have no column the version does not know (`SchemaDifference`);
/// - **version hashes**: the store's `NSStoreModelVersionHashes` (Core Data layout) equal
///   the hashes of a version: `referenceHashes[version]` when given (e.g. read with
///   `CoreDataMetadata.read` from a store the app created at that version), else computed
///   from the model (`VersionHashes`).
///
/// A store that carries hashes is matched by them first: exact, where versions with the same
/// schema (Bookmarks V1 and V2) are told apart only by them. The schema is the fallback, for
/// a store without hashes, a model whose hashes cannot be computed, and plain stores. A
/// version whose hashes match but whose schema does not is refused (the store was changed
/// behind Core Data's back), as is a store no version matches: the error names the closest
/// version and what differs.
public enum VersionDetector {
    public static func detect(store: Database, versions: [Model], layout: LayoutKind,
                              referenceHashes: [String: [String: Data]] = [:]) throws -> DetectedVersion {
        guard !versions.isEmpty else {
            throw VersionDetectionError(store: store.path, message: "no model versions to compare the store with")
        }
        var differences: [(model: Model, difference: SchemaDifference)] = []
        for model in versions {
            differences.append((model, try SchemaDifference.between(store: store, model: model, layout: layout)))
        }
        let bySchema = differences.filter { $0.difference.isEmpty }.map(\.model.version)

        var storeHashes: [String: Data] = [:]
        if layout == .coredata, let metadata = try? CoreDataMetadata.read(store) {
            storeHashes = metadata.versionHashes
        }
        let byHashes = storeHashes.isEmpty ? [] : versions.filter { model in
            guard let reference = referenceHashes[model.version] ?? (try? VersionHashes(model: model))?.entities,
                  !reference.isEmpty else { return false }
            return reference == storeHashes
        }.map(\.version)
        if byHashes.count == 1, bySchema.contains(byHashes[0]) {
            return DetectedVersion(version: byHashes[0], evidence: .schemaAndVersionHashes, schemaMatches: bySchema, hashMatches: byHashes)
        }

        if bySchema.count == 1 {
            let version = bySchema[0]
            if !byHashes.isEmpty && !byHashes.contains(version) {
                throw VersionDetectionError(store: store.path, message: "the schema is that of version \(version), but the store's version hashes "
                    + "are those of \(byHashes.joined(separator: ", ")): the store was changed outside Core Data, or the reference hashes are wrong")
            }
            return DetectedVersion(version: version, evidence: byHashes.contains(version) ? .schemaAndVersionHashes : .schema,
                                   schemaMatches: bySchema, hashMatches: byHashes)
        }
        if bySchema.count > 1 {
            let both = bySchema.filter { byHashes.contains($0) }
            if both.count == 1 {
                return DetectedVersion(version: both[0], evidence: .schemaAndVersionHashes, schemaMatches: bySchema, hashMatches: byHashes)
            }
            throw VersionDetectionError(store: store.path, message: "the schema matches several versions ("
                + bySchema.joined(separator: ", ") + ") and "
                + (storeHashes.isEmpty ? "the store has no version hashes to tell them apart"
                   : "its version hashes are those of none of them (or the same for several)")
                + ": name the source version explicitly")
        }
        // No schema match.
        let closest = differences.enumerated().min { a, b in
            (a.element.difference.count, -a.offset) < (b.element.difference.count, -b.offset)
        }!.element
        var message = "matches no version of the model (" + versions.map(\.version).joined(separator: ", ") + ")"
        if !byHashes.isEmpty {
            message += "; its version hashes are those of \(byHashes.joined(separator: ", ")), but its tables are not"
        }
        message += "; closest: \(closest.model.version), which differs: \(closest.difference)"
        throw VersionDetectionError(store: store.path, message: message, closestVersion: closest.model.version,
                                    differences: closest.difference)
    }
}
