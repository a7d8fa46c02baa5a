import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// Version hashes computed from the model equal the ones Core Data wrote into every real
/// store of the corpus (../shared/fixtures/coredata-corpus).
final class CoreDataVersionHashTests: XCTestCase {
    /// Every corpus store with an `.xcdatamodel`, and the version its README says wrote it.
    static let corpusStores: [(store: String, bundle: String, version: String)] = [
        ("coredata-corpus/coredataplus-samplemodel/SampleModel_V1.sqlite", "coredata-corpus/coredataplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel"),
        ("coredata-corpus/coredataplus-samplemodel/SampleModel_V2.sqlite", "coredata-corpus/coredataplus-samplemodel/SampleModel.xcdatamodeld", "SampleModel2"),
        ("coredata-corpus/ddg-bookmarks/Bookmarks_V1.sqlite", "coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", "BookmarksModel"),
        ("coredata-corpus/ddg-bookmarks/Bookmarks_V2.sqlite", "coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", "BookmarksModel 2"),
        ("coredata-corpus/ddg-bookmarks/Bookmarks_V3.sqlite", "coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", "BookmarksModel 3"),
        ("coredata-corpus/ddg-bookmarks/Bookmarks_V4.sqlite", "coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", "BookmarksModel 4"),
        ("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite", "coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", "BookmarksModel 5"),
        ("coredata-corpus/ddg-syncmetadata/SyncMetadata_V3.sqlite", "coredata-corpus/ddg-syncmetadata/SyncMetadata.xcdatamodeld", "SyncMetadata 3"),
        ("coredata-corpus/ctdatastoremanager/TestMigrationStore_version_1.sqlite", "coredata-corpus/ctdatastoremanager/TestMigrationStore.xcdatamodeld", "TestMigrationStore"),
        ("coredata-corpus/bnr-coredatastack/TestModel.sqlite", "coredata-corpus/bnr-coredatastack/Sample.xcdatamodeld", "TestModel"),
    ]

    func testSHA2MatchesTheStandardsTestVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        XCTAssertEqual(hex(SHA2.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA2.sha256([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // Two blocks: the padding spills over.
        XCTAssertEqual(hex(SHA2.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex(SHA2.sha512(Array("abc".utf8))),
                       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        XCTAssertEqual(hex(SHA2.sha512(Array(repeating: UInt8(ascii: "a"), count: 200))).prefix(16), "4b11459c33f52a22")
    }

    func testComputedHashesEqualEveryCorpusStoresOwn() throws {
        var checked: [String] = []
        var bundles: [String: ModelBundle] = [:]
        for (store, bundlePath, version) in Self.corpusStores {
            let folder = try SharedFixtures.temporaryFolder(for: self)
            let copy = try FixtureSet.copy(store, into: folder)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: FixtureSet.root.appendingPathComponent(store + suffix).path) {
                _ = try FixtureSet.copy(store + suffix, into: folder)
            }
            if bundles[bundlePath] == nil {
                bundles[bundlePath] = try ModelBundle.load(path: SharedFixtures.copy(bundlePath, for: self).path)
            }
            let model = try XCTUnwrap(bundles[bundlePath]!.version(named: version), version)
            let metadata = try CoreDataMetadata.read(try Database(path: copy.path, mode: .readOnly))
            let computed = try VersionHashes(model: model)
            XCTAssertFalse(metadata.versionHashes.isEmpty, store)
            XCTAssertEqual(Set(computed.entities.keys), Set(metadata.versionHashes.keys), store)
            for (entity, hash) in metadata.versionHashes.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(computed.entities[entity]?.base64EncodedString(), hash.base64EncodedString(), "\(store): entity \(entity)")
            }
            if let digest = metadata.versionHashesDigest {
                XCTAssertEqual(computed.digest, digest, "\(store): digest")
            }
            checked.append("\(store) (\(version): \(metadata.versionHashes.count) entities\(metadata.versionHashesDigest == nil ? "" : ", digest"))")
        }
        print("version hashes checked against:\n  " + checked.joined(separator: "\n  "))
        XCTAssertEqual(checked.count, Self.corpusStores.count)
    }

    /// Bookmarks V1 and V2 have the same schema: only their hashes tell them apart.
    func testEveryBookmarksStoreIsDetectedByItsHashes() throws {
        let bundle = try ModelBundle.load(path: SharedFixtures.copy("coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", for: self).path)
        for (n, version) in ["BookmarksModel", "BookmarksModel 2", "BookmarksModel 3", "BookmarksModel 4", "BookmarksModel 5"].enumerated() {
            let folder = try SharedFixtures.temporaryFolder(for: self)
            let store = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V\(n + 1).sqlite", into: folder)
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V\(n + 1).sqlite-wal", into: folder)
            let found = try VersionDetector.detect(store: try Database(path: store.path, mode: .readOnly), versions: bundle.versions, layout: .coredata)
            XCTAssertEqual(found.version, version, "Bookmarks_V\(n + 1)")
            XCTAssertEqual(found.hashMatches, [version])
            if n < 2 { XCTAssertEqual(found.schemaMatches, ["BookmarksModel", "BookmarksModel 2"]) }
        }
    }

    func testADerivedAttributeIsRefusedNamingTheEntity() throws {
        var count = Attribute(name: "bookCount", type: .integer64)
        count.derivation = "books.@count"
        let model = Model(version: "v1", entities: [Entity(name: "Author", attributes: [count])])
        XCTAssertThrowsError(try VersionHashes(model: model)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity Author"), text)
            XCTAssertTrue(text.contains("bookCount"), text)
            XCTAssertTrue(text.contains("template"), text)
        }
    }

    func testAVersionHashModifierChangesTheHash() throws {
        let plain = Model(version: "v1", entities: [Entity(name: "Note", attributes: [Attribute(name: "text", type: .string)])])
        var modified = plain
        modified.entities[0].attributes[0].versionHashModifier = "2"
        XCTAssertNotEqual(try VersionHashes(model: plain).entities["Note"], try VersionHashes(model: modified).entities["Note"])
    }

    func testTheReaderReadsFetchIndexesAndUniquenessConstraints() throws {
        let xml = """
            <model><entity name="Car"><attribute name="maker" optional="YES" attributeType="String"/>
            <attribute name="plate" attributeType="String"/>
            <fetchIndex name="byMaker"><fetchIndexElement property="maker" type="Binary" order="descending"/></fetchIndex>
            <uniquenessConstraints><uniquenessConstraint><constraint value="maker"/><constraint value="plate"/></uniquenessConstraint></uniquenessConstraints>
            </entity></model>
            """
        let model = try XCDataModelReader.read(Data(xml.utf8), file: "x/contents", version: "v1")
        XCTAssertEqual(model.entities[0].fetchIndexes, [FetchIndex(name: "byMaker", elements: [.init(property: "maker", isAscending: false)])])
        XCTAssertEqual(model.entities[0].uniquenessConstraints, [["maker", "plate"]])

        let bad = xml.replacingOccurrences(of: "<constraint value=\"plate\"/>", with: "<constraint value=\"plat\"/>")
        XCTAssertThrowsError(try XCDataModelReader.read(Data(bad.utf8), file: "x/contents", version: "v1")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("x/contents"), text)
            XCTAssertTrue(text.contains("entity Car: a uniqueness constraint names 'plat'"), text)
            XCTAssertTrue(text.contains("did you mean 'plate'?"), text)
        }
    }
}
