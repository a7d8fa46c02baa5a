import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// The model etl keeps in the stores it writes (`Z_MODELCACHE`, facts §6): an archive of the
/// classes and keys Core Data's caches have, which etl's reader reads back to the same model.
final class ModelCacheWriterTests: XCTestCase {
    func database(_ store: String) throws -> Database {
        let folder = try SharedFixtures.temporaryFolder(for: self)
        let copy = try FixtureSet.copy(store, into: folder)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: FixtureSet.root.appendingPathComponent(store + suffix).path) {
            _ = try FixtureSet.copy(store + suffix, into: folder)
        }
        return try Database(path: copy.path, mode: .readOnly)
    }

    /// Class name → the keys its objects use, over a whole archive.
    func keysByClass(_ archive: [UInt8]) throws -> [String: Set<String>] {
        guard case .dictionary(let top) = try BinaryPropertyList.read(archive), case .array(let objects)? = top["$objects"] else {
            XCTFail("not a keyed archive")
            return [:]
        }
        XCTAssertEqual(top["$archiver"], .string("NSKeyedArchiver"))
        XCTAssertEqual(top["$version"], .integer(100_000))
        var result: [String: Set<String>] = [:]
        for case .dictionary(let fields) in objects {
            guard case .uid(let c)? = fields["$class"], case .dictionary(let info) = objects[c], case .string(let name)? = info["$classname"] else { continue }
            result[name, default: []].formUnion(fields.keys)
        }
        return result
    }

    /// Every corpus cache, read and written again by etl: the same model and hashes back, and
    /// only classes and keys Core Data's own caches use.
    func testEveryCorpusModelWrittenAgainReadsBackTheSame() throws {
        var theirs: [String: Set<String>] = [:], ours: [String: Set<String>] = [:]
        for (store, _, _) in ModelCacheTests.cachedStores {
            let db = try database(store)
            let model = try XCTUnwrap(try ModelCache.read(db, version: "cached"), store)
            let content = try ModelCacheWriter.content(of: model, versionIdentifiers: model.versionIdentifiers)
            let readBack = try ModelCache.model(content: content, version: "cached", store: store)
            XCTAssertEqual(readBack, model, store)
            let agreement = ModelCacheAgreement.compare(readBack, with: try CoreDataMetadata.read(db))
            XCTAssertTrue(agreement.agrees, "\(store): \(agreement.summary)")

            guard case .blob(let original) = try db.rows("SELECT Z_CONTENT FROM Z_MODELCACHE").first![0] else { return XCTFail(store) }
            theirs.merge(try keysByClass(try RawDeflate.inflate(original, limit: 1 << 24))) { $0.union($1) }
            ours.merge(try keysByClass(try RawDeflate.inflate(content, limit: 1 << 24))) { $0.union($1) }
        }
        XCTAssertEqual(theirs["NSManagedObjectModel"]?.count, ours["NSManagedObjectModel"].map { $0.count + 1 }, "NSConfigurations (6 stores of 99) aside")
        for (className, keys) in ours {
            let known = try XCTUnwrap(theirs[className], "\(className) is in no cache of the corpus")
            XCTAssertEqual(keys.subtracting(known), [], className)
        }
        // Every class of an entity, a property, an index and a derivation is written; not those of
        // what a `Model` does not hold (fetched properties, validation predicates, a transformable's
        // default) nor the mutable variants Core Data sometimes writes instead of the plain ones.
        XCTAssertEqual(Set(theirs.keys).subtracting(ours.keys), [
            "NSFetchedPropertyDescription", "NSFetchRequest", "NSSortDescriptor", "NSComparisonPredicate", "NSCompoundPredicate",
            "NSComparisonPredicateOperator", "NSEqualityPredicateOperator", "NSInPredicateOperator", "NSVariableExpression",
            "CoreDataPlus_Tests.Cover", "NSMutableString", "NSMutableSet",
        ])
    }

    /// What a model file can say and the corpus does not show: an indexed attribute, a
    /// compound index, fetch indexes, a uniqueness constraint, a sub-entity, defaults of each
    /// kind, a required to-one with counts, an ordered to-many, a hash modifier, a renaming
    /// identifier, external storage, a derived count (properties in name order, as Xcode
    /// writes them). Written and read back: the same model (but the compound index Xcode
    /// leaves empty, which makes no index), the same version hashes, the same schema.
    func testAModelFileWrittenAndReadBackIsTheSame() throws {
        let model = try XCDataModelReader.read(Data(ModelBundleFiles.model(CoreDataLayoutFactsTests.indexedModel + """
            <entity name="Shelf" representedClassName="Shelf" elementID="Rack">
                <attribute name="bookCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count"/>
                <attribute name="capacity" attributeType="Integer 16" defaultValueString="12" usesScalarValueType="YES"/>
                <attribute name="isFull" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                <attribute name="label" optional="YES" attributeType="String" defaultValueString="new" versionHashModifier="2"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="width" optional="YES" attributeType="Double" defaultValueString="0.5" usesScalarValueType="YES"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
            </entity>
            <entity name="Item" representedClassName="Item">
                <attribute name="name" attributeType="String" elementID="title"/>
                <relationship name="shelf" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
            </entity>
            """).utf8), file: "written/contents", version: "written")
        XCTAssertTrue(model.entity(named: "Novel")?.attributes.first?.isIndexed == true)
        XCTAssertEqual(model.entity(named: "Author")?.compoundIndexes, [["name", "born"], []])

        let content = try ModelCacheWriter.content(of: model, versionIdentifiers: ["7"])
        let readBack = try ModelCache.model(content: content, version: "written", store: "written.sqlite")
        func sorted(_ model: Model) -> [Entity] {
            model.entities.sorted { $0.name < $1.name }.map { entity in
                var entity = entity
                entity.compoundIndexes.removeAll { $0.isEmpty }
                entity.attributes.sort { $0.name < $1.name }
                entity.relationships.sort { $0.name < $1.name }
                return entity
            }
        }
        XCTAssertEqual(sorted(readBack), sorted(model))
        XCTAssertEqual(readBack.versionIdentifiers, ["7"])
        XCTAssertEqual(try VersionHashes(model: readBack, recorded: ["Shelf": Data(repeating: 1, count: 32)]).entities,
                       try VersionHashes(model: model, recorded: ["Shelf": Data(repeating: 1, count: 32)]).entities)
        XCTAssertEqual(CoreDataLayout(model: readBack).schemaSQL(), CoreDataLayout(model: model).schemaSQL())
        // The same model, the same bytes: a resumed finish writes what an uninterrupted one wrote.
        XCTAssertEqual(try ModelCacheWriter.content(of: readBack, versionIdentifiers: ["7"]), content)
    }

    /// A new store etl writes keeps its model, which agrees with the store's metadata.
    func testAStoreEtlWritesKeepsItsModel() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        for model in bundle.versions {
            let db = try Database(path: ":memory:", mode: .create)
            let layout = CoreDataLayout(model: model)
            for sql in layout.schemaSQL() { try db.execute(sql) }
            try layout.finish(db)
            try layout.finish(db)
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Z_MODELCACHE"), 1, "finish again writes it once")
            var kept = try XCTUnwrap(try ModelCache.read(db, version: model.version))
            XCTAssertTrue(ModelCacheAgreement.check(db, metadata: try CoreDataMetadata.read(db))?.agrees == true, model.version)
            XCTAssertEqual(kept.versionIdentifiers, try CoreDataMetadata.read(db).versionIdentifiers)
            kept.versionIdentifiers = model.versionIdentifiers
            XCTAssertEqual(ModelComparison(kept), ModelComparison(model), model.version)
        }
    }

    /// A derivation etl cannot archive leaves the table empty: the store keeps no model
    /// rather than a wrong one.
    func testADerivationEtlCannotArchiveKeepsNoModel() throws {
        var model = Model(version: "v", entities: [Entity(name: "A", attributes: [Attribute(name: "n", type: .integer64)])])
        model.entities[0].attributes[0].derivation = "now()"
        XCTAssertThrowsError(try ModelCacheWriter.content(of: model, versionIdentifiers: [""])) { error in
            XCTAssertEqual("\(error)", "attribute A.n is derived as 'now()', which etl cannot archive (only a key path, or a key path's @count)")
        }
    }

    /// A batch writes one model's cache into thousands of stores: it is archived once per
    /// model and identifiers, and an unwritable model stays unwritable.
    func testAModelsCacheIsMadeOncePerModelAndIdentifiers() throws {
        let caches = MadeModelCaches()
        let model = Model(version: "v", entities: [Entity(name: "A", attributes: [Attribute(name: "n", type: .integer64)])])
        var other = model
        other.entities[0].attributes[0].name = "m"
        nonisolated(unsafe) var made = 0
        func content(_ model: Model, _ identifiers: [String]) throws -> [UInt8] {
            try caches.content(of: model, versionIdentifiers: identifiers) {
                made += 1
                return try RawDeflate.deflate(ModelCacheWriter.archive(of: model, versionIdentifiers: identifiers))
            }
        }
        let first = try content(model, [""])
        XCTAssertEqual(try content(model, [""]), first)
        XCTAssertEqual(made, 1)
        XCTAssertNotEqual(try content(other, [""]), first)
        _ = try content(model, ["2"])
        XCTAssertEqual(made, 3)
        var unwritable = model
        unwritable.entities[0].attributes[0].derivation = "now()"
        for _ in 0..<2 { XCTAssertThrowsError(try content(unwritable, [""])) { XCTAssertTrue($0 is ModelCacheWriter.Unwritable) } }
        XCTAssertEqual(made, 4)
    }
}
