import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// The model a Core Data store keeps in `Z_MODELCACHE`, read for every corpus store that has
/// one: its version hashes are the store's, and it is the bundle's version that wrote it.
final class ModelCacheTests: XCTestCase {
    /// Every corpus store with a `Z_MODELCACHE`, and the bundle version that wrote it (nil: a
    /// model built in code, which has no bundle).
    static let cachedStores: [(store: String, bundle: String?, version: String?)] =
        CoreDataVersionHashTests.corpusStores.filter { !$0.store.contains("TestMigrationStore") }.map { ($0.store, $0.bundle, $0.version) }
        + [("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V1.sqlite", nil, nil),
           ("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V2.sqlite", nil, nil)]

    func database(_ store: String) throws -> Database {
        let folder = try SharedFixtures.temporaryFolder(for: self)
        let copy = try FixtureSet.copy(store, into: folder)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: FixtureSet.root.appendingPathComponent(store + suffix).path) {
            _ = try FixtureSet.copy(store + suffix, into: folder)
        }
        return try Database(path: copy.path, mode: .readOnly)
    }

    func testEveryCorpusCacheHasTheStoresVersionHashes() throws {
        var checked = 0, derived: [String] = []
        for (store, _, _) in Self.cachedStores {
            let db = try database(store)
            let model = try XCTUnwrap(try ModelCache.read(db, version: "cached"), store)
            let metadata = try CoreDataMetadata.read(db)
            XCTAssertEqual(Set(model.entities.map(\.name)), Set(metadata.versionHashes.keys), store)
            XCTAssertEqual(model.versionIdentifiers.sorted(), metadata.versionIdentifiers.sorted(), store)
            for (entity, hash) in metadata.versionHashes.sorted(by: { $0.key < $1.key }) {
                // Entities with a derived attribute (their own or inherited) cannot be computed.
                if model.attributes(of: entity).contains(where: { $0.derivation != nil }) {
                    derived.append("\(entity)")
                    continue
                }
                XCTAssertEqual(Data(try VersionHashes.hash(of: entity, in: model)).base64EncodedString(), hash.base64EncodedString(), "\(store): \(entity)")
                checked += 1
            }
        }
        print("cached models: \(checked) entity hashes equal the stores' own; not computable (derived): \(derived)")
        XCTAssertGreaterThan(checked, 20)
        // SampleModel2's Book (pagesCount = pages.@count) and GraphicNovel below it, in V1 and V2.
        XCTAssertEqual(derived.sorted(), ["Book", "Book", "GraphicNovel", "GraphicNovel"])
    }

    func testEveryCorpusCacheIsTheBundleVersionThatWroteTheStore() throws {
        var bundles: [String: ModelBundle] = [:]
        var compared = 0
        for case let (store, bundlePath?, version?) in Self.cachedStores {
            if bundles[bundlePath] == nil {
                bundles[bundlePath] = try ModelBundle.load(path: SharedFixtures.copy(bundlePath, for: self).path)
            }
            let expected = try XCTUnwrap(bundles[bundlePath]!.version(named: version))
            let cached = try XCTUnwrap(try ModelCache.read(try database(store), version: version))
            XCTAssertEqual(ModelComparison(cached), ModelComparison(expected), store)
            // Everything else too (what a plan compares before it says a bundle and a kept model differ).
            func sorted(_ model: Model) -> [Entity] {
                model.entities.sorted { $0.name < $1.name }.map { entity in
                    var entity = entity
                    entity.attributes.sort { $0.name < $1.name }
                    entity.relationships.sort { $0.name < $1.name }
                    return entity
                }
            }
            XCTAssertEqual(sorted(cached), sorted(expected), store)
            XCTAssertEqual(cached.versionIdentifiers, expected.versionIdentifiers, store)
            compared += 1
        }
        XCTAssertEqual(compared, 9)
    }

    /// `model from-store --xcdatamodel`: the XML written from every cache reads back as the
    /// same model, whose computed hashes are the store's.
    func testTheXMLWrittenFromEveryCacheReadsBackAsTheSameModel() throws {
        for (store, _, _) in Self.cachedStores {
            let db = try database(store)
            let cached = try XCTUnwrap(try ModelCache.read(db, version: "Written"), store)
            let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Written.xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(XCDataModelWriter.xml(cached).utf8).write(to: folder.appendingPathComponent("contents"))
            let readBack = try ModelBundle.loadVersion(path: folder.path)
            XCTAssertEqual(readBack, cached, store)
            let agreement = ModelCacheAgreement.compare(readBack, with: try CoreDataMetadata.read(db))
            XCTAssertTrue(agreement.agrees, "\(store): \(agreement.summary)")
            XCTAssertFalse(agreement.matching.isEmpty, store)
        }
    }

    func testTheDerivedAttributeOfAModelBuiltInCodeIsRead() throws {
        let model = try XCTUnwrap(try ModelCache.read(try database("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V1.sqlite"), version: "V1"))
        let pages = try XCTUnwrap(model.attribute("pagesCount", of: "Book"))
        XCTAssertEqual(pages.derivation, "pages.@count")
        XCTAssertEqual(model.entity(named: "GraphicNovel")?.parent, "Book")
        XCTAssertEqual(model.entity(named: "Author")?.parent, "Writer")
        // `maxCount = .max` in code: archived as -1, read as the largest count.
        XCTAssertEqual(model.relationship("books", of: "Author")?.maxCount, Int.max)
    }

    func testACacheInflatingPastTheLimitIsRefusedNamingTheStore() throws {
        let db = try database("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite")
        guard case .blob(let content) = try db.rows("SELECT Z_CONTENT FROM Z_MODELCACHE").first![0] else { return XCTFail("no blob") }
        XCTAssertNoThrow(try ModelCache.model(content: content, version: "v", store: "Bookmarks_V5.sqlite"))
        let error = try XCTUnwrap(thrownError(CoreDataStoreError.self) { try ModelCache.model(content: content, version: "v", store: "Bookmarks_V5.sqlite", inflatedLimit: 1000) })
        XCTAssertTrue("\(error)".hasPrefix("Bookmarks_V5.sqlite: Z_MODELCACHE: inflates to more than 1000 bytes"), "\(error)")
    }

    func testADamagedCacheIsRefusedNamingTheStore() throws {
        let db = try database("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite")
        guard case .blob(let content) = try db.rows("SELECT Z_CONTENT FROM Z_MODELCACHE").first![0] else { return XCTFail("no blob") }
        let truncated = try XCTUnwrap(thrownError(CoreDataStoreError.self) { try ModelCache.model(content: Array(content.prefix(content.count / 2)), version: "v", store: "S.sqlite") })
        XCTAssertTrue("\(truncated)".hasPrefix("S.sqlite: Z_MODELCACHE: the deflate stream ends early"), "\(truncated)")
        let garbage = try XCTUnwrap(thrownError(CoreDataStoreError.self) { try ModelCache.model(content: [0xFF, 0xFF, 0xFF, 0xFF], version: "v", store: "S.sqlite") })
        XCTAssertTrue("\(garbage)".hasPrefix("S.sqlite: Z_MODELCACHE: not raw deflate"), "\(garbage)")
    }

    /// An archive not written by Core Data may say anything: an inheritance cycle (version
    /// hashes recurse through parents), an inverse that is not there, an index of nothing.
    func testAModelThatCannotBeTheStoresIsRefused() {
        let cycle = Model(version: "v", entities: [Entity(name: "A", parent: "B"), Entity(name: "B", parent: "A")])
        XCTAssertEqual((thrownError(ArchiveGraph.Malformed.self) { try ModelCache.check(cycle) })?.reason, "entity A is its own ancestor")
        let inverse = Model(version: "v", entities: [Entity(name: "A", relationships: [Relationship(name: "b", destination: "A", inverse: "c")])])
        XCTAssertEqual((thrownError(ArchiveGraph.Malformed.self) { try ModelCache.check(inverse) })?.reason,
                       "relationship A.b: its inverse c is not a relationship of A")
        var indexed = Entity(name: "A", attributes: [Attribute(name: "x", type: .string)])
        indexed.fetchIndexes = [FetchIndex(name: "byY", elements: [FetchIndex.Element(property: "y")])]
        XCTAssertEqual((thrownError(ArchiveGraph.Malformed.self) { try ModelCache.check(Model(version: "v", entities: [indexed])) })?.reason,
                       "entity A: an index or uniqueness constraint names y, not a stored attribute or to-one of it")
        indexed.fetchIndexes = [FetchIndex(name: "byX", elements: [FetchIndex.Element(property: "x")])]
        XCTAssertNoThrow(try ModelCache.check(Model(version: "v", entities: [indexed])))
    }

    func testAStoreWithoutACacheHasNone() throws {
        let db = try database("coredata-corpus/ctdatastoremanager/TestMigrationStore_version_1.sqlite")
        XCTAssertNil(try ModelCache.read(db, version: "v"))
    }
}

/// What the issue asks a cached model to share with its bundle version: entities (parent,
/// abstract), attributes and their types, relationships, with the counts Core Data means
/// (a missing maxCount: 1 for a to-one, 0 for a to-many), properties by name.
struct ModelComparison: Equatable, CustomStringConvertible {
    var entities: [String]

    init(_ model: Model) {
        entities = model.entities.sorted { $0.name < $1.name }.map { entity in
            var lines = ["\(entity.name) < \(entity.parent ?? "-")\(entity.isAbstract ? " abstract" : "") #\(entity.versionHashModifier ?? "")"
                         + " unique \(entity.uniquenessConstraints) renamed \(entity.renamingIdentifier ?? "-")"]
            lines += entity.fetchIndexes.map { "  index \($0.name) \($0.elements.map { "\($0.property)\($0.isAscending ? "" : " desc")" })" }
            lines += entity.attributes.sorted { $0.name < $1.name }.map { a in
                "  \(a.name): \(a.type)\(a.isOptional ? "?" : "") = \(a.defaultValue.map { "\($0)" } ?? "-") #\(a.versionHashModifier ?? "")"
                    + " ext \(a.allowsExternalBinaryDataStorage) keep \(a.preservesValueInHistoryOnDeletion) derived \(a.derivation ?? "-")"
                    + " renamed \(a.renamingIdentifier ?? "-")"
            }
            lines += entity.relationships.sorted { $0.name < $1.name }.map { r in
                "  \(r.name) -> \(r.destination) inverse \(r.inverse ?? "-")\(r.isToMany ? " many" : "")\(r.isOrdered ? " ordered" : "")"
                    + "\(r.isOptional ? "?" : "") \(r.minCount ?? 0)...\(r.maxCount ?? (r.isToMany ? 0 : 1)) #\(r.versionHashModifier ?? "")"
                    + " renamed \(r.renamingIdentifier ?? "-")"
            }
            return lines.joined(separator: "\n")
        }
    }

    var description: String { entities.joined(separator: "\n") }
}
