import Foundation
import ETLStore

/// The store metadata Core Data keeps in `Z_METADATA` (one row: `Z_VERSION`, `Z_UUID`, and
/// `Z_PLIST`, a binary property list).
///
///     let metadata = try CoreDataMetadata.read(db)
///     metadata.versionHashes["BasicEntity"]   // 32 bytes computed by Core Data
///
/// Version hashes are Core Data's digests of each entity; `VersionHashes` computes them from
/// the model. Keys this type does not name (an app's own `setMetadata` keys among them) are
/// kept in `otherKeys`, so that a migration carries them over.
public struct CoreDataMetadata: Sendable, Equatable {
    /// `Z_METADATA.Z_UUID` (read from the plist's `NSStoreUUID` when the column is empty, as
    /// old files may have it; never written there: Core Data keeps it in `Z_UUID` only, 0 of
    /// 102 stores have the key, facts §7).
    public var storeUUID: String?
    /// `NSStoreType`, "SQLite" for Core Data's SQLite stores.
    public var storeType: String?
    /// `NSStoreModelVersionHashes`: entity name → Core Data's hash of the entity.
    public var versionHashes: [String: Data]
    /// `NSStoreModelVersionIdentifiers`.
    public var versionIdentifiers: [String]
    /// `NSStoreModelVersionHashesDigest`: Core Data's digest of all hashes (base64 text).
    public var versionHashesDigest: String?
    /// `NSPersistenceFrameworkVersion`.
    public var frameworkVersion: Int?
    /// `NSStoreModelVersionHashesVersion`.
    public var hashesVersion: Int?
    /// `_NSAutoVacuumLevel`, as Core Data writes it ("2").
    public var autoVacuumLevel: String?
    /// Every other key of the plist (the app's own metadata, `NSStoreModelVersionChecksumKey`…),
    /// as a binary property list of one dictionary, each value of the type it was stored as
    /// (an app's real 1.0 stays a real, not the integer 1); nil when there is none.
    public var otherKeys: Data?

    /// The keys that describe the model version a store is at: a migration replaces them
    /// (and leaves out those it cannot compute, such as the checksum of the compiled model).
    public static let modelKeys: Set<String> = ["NSStoreModelVersionHashes", "NSStoreModelVersionHashesDigest",
                                                "NSStoreModelVersionIdentifiers", "NSStoreModelVersionChecksumKey",
                                                "NSStoreModelVersionHashesVersion"]
    /// The keys this type has a property for.
    static let namedKeys: Set<String> = modelKeys.union(["NSStoreUUID", "NSStoreType", "NSPersistenceFrameworkVersion", "_NSAutoVacuumLevel"])

    /// The framework version found in stores Core Data wrote (the shared fixtures say 1048);
    /// written when no template store gives another.
    public static let defaultFrameworkVersion = 1048
    /// The hash scheme version of current Core Data stores.
    public static let defaultHashesVersion = 3

    public init(storeUUID: String? = nil, storeType: String? = "SQLite", versionHashes: [String: Data] = [:],
                versionIdentifiers: [String] = [""], versionHashesDigest: String? = nil,
                frameworkVersion: Int? = CoreDataMetadata.defaultFrameworkVersion,
                hashesVersion: Int? = CoreDataMetadata.defaultHashesVersion, autoVacuumLevel: String? = "2") {
        self.storeUUID = storeUUID
        self.storeType = storeType
        self.versionHashes = versionHashes
        self.versionIdentifiers = versionIdentifiers
        self.versionHashesDigest = versionHashesDigest
        self.frameworkVersion = frameworkVersion
        self.hashesVersion = hashesVersion
        self.autoVacuumLevel = autoVacuumLevel
    }

    /// Reads `Z_METADATA` of a Core Data store.
    public static func read(_ db: Database) throws -> CoreDataMetadata {
        guard try db.table(named: "Z_METADATA") != nil else {
            throw CoreDataStoreError(store: db.path, "has no Z_METADATA table: not a store written by Core Data (or its metadata was removed)")
        }
        let rows = try db.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        guard let row = rows.first else {
            throw CoreDataStoreError(store: db.path, "Z_METADATA is empty: the store has no Core Data metadata")
        }
        var metadata: CoreDataMetadata
        switch row[1] {
        case .blob(let bytes):
            do {
                metadata = try decode(plist: Data(bytes))
            } catch let error as CoreDataStoreError {
                throw CoreDataStoreError(store: db.path, error.message)
            }
        case .null:
            metadata = CoreDataMetadata(storeType: nil, versionIdentifiers: [], frameworkVersion: nil, hashesVersion: nil, autoVacuumLevel: nil)
        default:
            throw CoreDataStoreError(store: db.path, "Z_METADATA.Z_PLIST is not a blob")
        }
        if case .text(let uuid) = row[0], !uuid.isEmpty { metadata.storeUUID = uuid }
        return metadata
    }

    /// Decodes the property list of `Z_METADATA.Z_PLIST`.
    public static func decode(plist data: Data) throws -> CoreDataMetadata {
        let object: Any
        do {
            // Core Data writes a binary property list (102 of 102 stores), read by the bounded
            // reader. Anything else is refused: Foundation's reader expands shared references,
            // trusts offsets and crashes bridging a set of dictionaries (found by fuzzing),
            // in its XML form too.
            guard data.starts(with: "bplist00".utf8) else {
                throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST is not a binary property list (Core Data writes bplist00; "
                    + "its first bytes are \(data.prefix(8).map { String(format: "%02x", $0) }.joined()))")
            }
            object = try BinaryPropertyList.read(Array(data)).foundationValue()
        } catch let error as CoreDataStoreError {
            throw error
        } catch let error as BinaryPropertyList.Malformed {
            throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST is \(error)")
        } catch let error as PropertyListValue.NotAFoundationValue {
            throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST holds \(error)")
        } catch {
            throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST is not a property list (\(error.localizedDescription))")
        }
        guard let plist = object as? [String: Any] else {
            throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST is not a dictionary")
        }
        var hashes: [String: Data] = [:]
        if let raw = plist["NSStoreModelVersionHashes"] as? [String: Any] {
            for (entity, value) in raw {
                if let data = value as? Data { hashes[entity] = data }
            }
        }
        func int(_ key: String) -> Int? {
            if let n = plist[key] as? Int { return n }
            if let n = plist[key] as? NSNumber { return n.intValue }
            if let s = plist[key] as? String { return Int(s) }
            return nil
        }
        // The app's keys as stored (Foundation's reader on Linux hands a real 1.0 back as a
        // number that the writer cannot tell from the integer 1).
        var others: [String: Any] = plist.filter { !namedKeys.contains($0.key) }
        if case .dictionary(let typed)? = try? BinaryPropertyList.read(Array(data)) {
            others = typed.filter { !namedKeys.contains($0.key) }.compactMapValues(\.writable)
        }
        // The checksum is of the compiled model, which this tool does not have: never carried.
        others["NSStoreModelVersionChecksumKey"] = nil
        var metadata = CoreDataMetadata(
            storeUUID: plist["NSStoreUUID"] as? String,
            storeType: plist["NSStoreType"] as? String,
            versionHashes: hashes,
            versionIdentifiers: (plist["NSStoreModelVersionIdentifiers"] as? [Any])?.compactMap { $0 as? String } ?? [],
            versionHashesDigest: plist["NSStoreModelVersionHashesDigest"] as? String,
            frameworkVersion: int("NSPersistenceFrameworkVersion"),
            hashesVersion: int("NSStoreModelVersionHashesVersion"),
            autoVacuumLevel: plist["_NSAutoVacuumLevel"] as? String)
        if !others.isEmpty {
            // Carried over whole or the store fails by name: never dropped in silence.
            do {
                metadata.otherKeys = try BinaryPropertyList.encode(others)
            } catch {
                throw CoreDataStoreError(store: "", "Z_METADATA.Z_PLIST's keys \(others.keys.sorted().joined(separator: ", ")) cannot be carried over: \(error)")
            }
        }
        return metadata
    }

    /// The keys of `otherKeys`, sorted.
    public var otherKeyNames: [String] {
        // etl's own reader, as for every property list (these bytes came from a store).
        guard let otherKeys, case .dictionary(let plist)? = try? BinaryPropertyList.read(Array(otherKeys)) else {
            return []
        }
        return plist.keys.sorted()
    }

    /// The binary property list for `Z_METADATA.Z_PLIST`. Keys whose value is nil are left
    /// out, and so are the hashes (and their digest) when there are none.
    public func encodePlist() throws -> Data {
        var plist: [String: Any] = [:]
        if let otherKeys, case .dictionary(let others) = try BinaryPropertyList.read(Array(otherKeys)) {
            plist = others.filter { !Self.namedKeys.contains($0.key) }.compactMapValues(\.writable)
        }
        plist["NSStoreType"] = storeType
        plist["NSStoreModelVersionIdentifiers"] = versionIdentifiers
        if let frameworkVersion { plist["NSPersistenceFrameworkVersion"] = frameworkVersion }
        if let hashesVersion { plist["NSStoreModelVersionHashesVersion"] = hashesVersion }
        if let autoVacuumLevel { plist["_NSAutoVacuumLevel"] = autoVacuumLevel }
        if !versionHashes.isEmpty {
            plist["NSStoreModelVersionHashes"] = versionHashes
            // Written by every framework from 977 on, by none up to 866 (facts §7).
            if let versionHashesDigest, (frameworkVersion ?? Self.defaultFrameworkVersion) >= 977 {
                plist["NSStoreModelVersionHashesDigest"] = versionHashesDigest
            }
        }
        // Sorted keys: the same metadata, the same bytes (a resumed run writes the same store).
        return try BinaryPropertyList.encode(plist)
    }
}

extension PropertyListValue {
    /// The value as `BinaryPropertyList.encode` writes it back with the same type: Bool,
    /// Int, Double, Date, Data, String, arrays and dictionaries. Nil for what a metadata
    /// plist cannot hold (a keyed archiver's UID, null).
    var writable: Any? {
        switch self {
        case .bool(let v): return v
        case .integer(let v): return Int(v)
        case .real(let v): return v
        case .date(let v): return Date(timeIntervalSinceReferenceDate: v)
        case .data(let v): return Data(v)
        case .string(let v): return v
        case .array(let v): return v.compactMap(\.writable) as [Any]
        case .dictionary(let v): return v.compactMapValues(\.writable) as [String: Any]
        case .null, .uid: return nil
        }
    }
}
