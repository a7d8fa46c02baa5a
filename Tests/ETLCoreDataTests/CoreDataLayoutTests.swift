import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

final class CoreDataLayoutTests: XCTestCase {
    private func indexes(_ db: Database) throws -> [String] {
        try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").compactMap { $0[0].text }
    }

    // MARK: The fixture stores

    func testLayoutReadFromEachFixtureStore() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        for version in SharedFixtures.chainVersions {
            let db = try Database(path: SharedFixtures.store(version, for: self).path, mode: .readOnly)
            let model = try XCTUnwrap(bundle.version(named: version))
            let layout = try CoreDataLayout(model: model, store: db)
            XCTAssertEqual(layout.kind, .coredata)
            XCTAssertEqual(layout.dateEpoch, 978_307_200)
            XCTAssertEqual(layout.entityNumber(of: "BasicEntity"), 1, version)
            XCTAssertEqual(layout.entityNumbers, ["BasicEntity": 1])
            let table = layout.table(of: "BasicEntity")
            XCTAssertEqual(table, EntityTable(name: "ZBASICENTITY", keyColumn: "Z_PK", discriminator: nil,
                                              insertDefaults: [("Z_ENT", .integer(1)), ("Z_OPT", .integer(1))]), version)
            let attribute = model.entities[0].attributes[0].name
            let column = layout.column(ofAttribute: attribute, entity: "BasicEntity")
            XCTAssertEqual(column, "Z" + attribute.uppercased(), version)
            XCTAssertEqual(try db.rows("SELECT \(column) FROM \(table.name)"), [[.text("A Known Value")]], version)
            // The conventional layout agrees with what Core Data wrote.
            XCTAssertEqual(CoreDataLayout(model: model).table(of: "BasicEntity"), table)
            XCTAssertEqual(LayoutKind.coredata.layout(for: model).table(of: "BasicEntity"), table)
            XCTAssertEqual(try LayoutKind.coredata.layout(for: model, store: db).column(ofAttribute: attribute, entity: "BasicEntity"), column)
            // The other kind's layout is the plain one, store or not.
            XCTAssertTrue(LayoutKind.plain.layout(for: model) is PlainLayout)
            XCTAssertTrue(try LayoutKind.plain.layout(for: model, store: db) is PlainLayout)
        }
    }

    func testConventionalSchemaIsTheFixtureSchema() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let db = try Database(path: SharedFixtures.store("v1.2.0", for: self).path, mode: .readOnly)
        let created = try emptyStore(CoreDataLayout(model: XCTUnwrap(bundle.version(named: "v1.2.0"))))
        for name in ["ZBASICENTITY", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"] {
            let real = try XCTUnwrap(try db.table(named: name), name)
            XCTAssertEqual(try created.table(named: name), real, name)
        }
        XCTAssertEqual(try created.tableNames().sorted(), try db.tableNames().sorted())
    }

    func testFixtureMetadataReads() throws {
        for version in SharedFixtures.chainVersions {
            let db = try Database(path: SharedFixtures.store(version, for: self).path, mode: .readOnly)
            let metadata = try CoreDataMetadata.read(db)
            XCTAssertEqual(metadata.storeType, "SQLite")
            XCTAssertEqual(metadata.storeUUID, try db.rows("SELECT Z_UUID FROM Z_METADATA").first?[0].text)
            XCTAssertEqual(Array(metadata.versionHashes.keys), ["BasicEntity"])
            XCTAssertEqual(metadata.versionHashes["BasicEntity"]?.count, 32)
            XCTAssertEqual(metadata.versionIdentifiers, [""])
            XCTAssertEqual(metadata.frameworkVersion, 1048)
            XCTAssertEqual(metadata.hashesVersion, 3)
            XCTAssertNotNil(metadata.versionHashesDigest)
        }
    }

    func testStoreOfAnotherVersionIsAClearError() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let path = try SharedFixtures.store("v1.0.0", for: self).path
        let db = try Database(path: path, mode: .readOnly)
        XCTAssertThrowsError(try CoreDataLayout(model: XCTUnwrap(bundle.version(named: "v1.1.0")), store: db)) { error in
            let text = "\(error)"
            XCTAssertTrue(error is CoreDataStoreError, text)
            for part in [path, "model v1.1.0", "entity BasicEntity", "attribute v1_1_0_name", "no column ZV1_1_0_NAME in ZBASICENTITY", "ZV1_0_0_NAME"] {
                XCTAssertTrue(text.contains(part), "'\(text)' should contain '\(part)'")
            }
        }
        var renamed = try XCTUnwrap(bundle.version(named: "v1.0.0"))
        renamed.entities[0].name = "Basic"
        XCTAssertThrowsError(try LayoutKind.coredata.layout(for: renamed, store: db)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity Basic of model v1.0.0 is not in Z_PRIMARYKEY (entities there: BasicEntity)"), text)
        }
    }

    func testNotACoreDataStore() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE Book (id INTEGER PRIMARY KEY)")
        XCTAssertThrowsError(try CoreDataLayout(model: booksModel(1), store: db)) { error in
            XCTAssertTrue("\(error)".contains("no Z_PRIMARYKEY table"), "\(error)")
        }
        XCTAssertThrowsError(try CoreDataMetadata.read(db)) { error in
            XCTAssertTrue("\(error)".contains("no Z_METADATA table"), "\(error)")
        }
    }

    // MARK: Entity numbers

    func testEntityNumbersAlphabeticalWithSubEntitiesAfterTheirParent() throws {
        let model = try LibraryModelXML.model(for: self)
        // Roots Album, Artwork, Collection, Item; Item's sub-entities Song, Video follow it.
        XCTAssertEqual(CoreDataEntityNumbers.conventional(for: model),
                       ["Album": 1, "Artwork": 2, "Collection": 3, "Item": 4, "Song": 5, "Video": 6])
        let tree = Model(version: "t", entities: [
            Entity(name: "Tag"), Entity(name: "UserTag", parent: "CashFlowTag"), Entity(name: "CashFlowTag", parent: "Tag"),
            Entity(name: "CategoryTag", parent: "CashFlowTag"), Entity(name: "Transaction"), Entity(name: "Account"),
        ])
        XCTAssertEqual(CoreDataEntityNumbers.conventional(for: tree),
                       ["Account": 1, "Tag": 2, "CashFlowTag": 3, "CategoryTag": 4, "UserTag": 5, "Transaction": 6])
    }

    // MARK: A new store

    func testSchemaOfTheLibraryModel() throws {
        let layout = CoreDataLayout(model: try LibraryModelXML.model(for: self))
        let db = try emptyStore(layout)
        XCTAssertEqual(try db.tableNames().sorted(),
                       ["ZALBUM", "ZARTWORK", "ZCOLLECTION", "ZITEM", "Z_3ITEMS", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"])
        // Sub-entities share the root's table; both sides of the one-to-one have a column.
        XCTAssertEqual(try db.columnNames("ZITEM"), ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZCREATED", "ZDURATION", "ZPLAYS", "ZTRACK", "ZBPM",
                                                     "ZRATING", "ZPRICE", "ZEXPLICIT", "ZARTWORK", "ZUUID", "ZLINK", "ZTAGS",
                                                     "ZALBUM", "Z_FOK_ALBUM", "ZRESOLUTION"])
        XCTAssertEqual(try db.columnNames("ZALBUM"), ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZCOVER", "ZFEATURED", "Z4_FEATURED"])
        XCTAssertEqual(try db.columnNames("ZARTWORK"), ["Z_PK", "Z_ENT", "Z_OPT", "ZDATA", "ZALBUM"])
        // Collection #3 ↔ Item #4: the lower number names the table.
        XCTAssertEqual(try db.columnNames("Z_3ITEMS"), ["Z_3COLLECTIONS", "Z_4ITEMS"])
        // ZITEM is shared by Item, Song and Video: Core Data indexes its Z_ENT.
        XCTAssertEqual(try indexes(db), ["ZALBUM_ZCOVER_INDEX", "ZALBUM_ZFEATURED_INDEX", "ZARTWORK_ZALBUM_INDEX", "ZITEM_ZALBUM_INDEX",
                                          "ZITEM_Z_ENT_INDEX", "Z_3ITEMS_Z_4ITEMS_INDEX"])
        let types = try db.rows("SELECT name, type FROM pragma_table_info('ZITEM')").map { "\($0[0].text!) \($0[1].text!)" }
        for expected in ["ZCREATED TIMESTAMP", "ZDURATION FLOAT", "ZRATING FLOAT", "ZPRICE DECIMAL", "ZPLAYS INTEGER", "ZEXPLICIT INTEGER",
                         "ZARTWORK BLOB", "ZUUID BLOB", "ZTAGS BLOB", "ZLINK VARCHAR", "ZTITLE VARCHAR"] {
            XCTAssertTrue(types.contains(expected), "\(expected) in \(types)")
        }
    }

    func testTablesColumnsAndStorage() throws {
        let layout = CoreDataLayout(model: try LibraryModelXML.model(for: self))
        XCTAssertEqual(layout.table(of: "Song"), EntityTable(name: "ZITEM", keyColumn: "Z_PK", discriminator: ("Z_ENT", .integer(5)),
                                                             insertDefaults: [("Z_ENT", .integer(5)), ("Z_OPT", .integer(1))]))
        XCTAssertEqual(layout.table(of: "Video").discriminator?.value, .integer(6))
        XCTAssertEqual(layout.table(of: "Album").discriminator == nil, true, "a root without sub-entities needs no discriminator")
        XCTAssertEqual(layout.column(ofAttribute: "title", entity: "Song"), "ZTITLE", "inherited")
        XCTAssertEqual(layout.storage(ofRelationship: "album", entity: "Song"), .foreignKey(table: "ZITEM", column: "ZALBUM"))
        XCTAssertEqual(layout.storage(ofRelationship: "songs", entity: "Album"), .inverseForeignKey(table: "ZITEM", column: "ZALBUM"))
        XCTAssertEqual(layout.storage(ofRelationship: "cover", entity: "Album"), .foreignKey(table: "ZALBUM", column: "ZCOVER"))
        XCTAssertEqual(layout.storage(ofRelationship: "album", entity: "Artwork"), .foreignKey(table: "ZARTWORK", column: "ZALBUM"),
                       "one-to-one: both sides store a column")
        XCTAssertEqual(layout.storage(ofRelationship: "items", entity: "Collection"),
                       .joinTable(table: "Z_3ITEMS", ownColumn: "Z_3COLLECTIONS", otherColumn: "Z_4ITEMS"))
        XCTAssertEqual(layout.storage(ofRelationship: "collections", entity: "Video"),
                       .joinTable(table: "Z_3ITEMS", ownColumn: "Z_4ITEMS", otherColumn: "Z_3COLLECTIONS"))
        XCTAssertEqual(layout.entityColumn(ofRelationship: "featured", entity: "Album"), "Z4_FEATURED")
        XCTAssertNil(layout.entityColumn(ofRelationship: "album", entity: "Song"))
        XCTAssertEqual(layout.orderColumn(ofRelationship: "songs", entity: "Album"), "Z_FOK_ALBUM")
        XCTAssertEqual(layout.orderColumn(ofRelationship: "album", entity: "Song"), "Z_FOK_ALBUM")
        XCTAssertNil(layout.orderColumn(ofRelationship: "items", entity: "Collection"))
    }

    func testManyToManyJoinTableFollowsTheDocumentedRule() throws {
        // Collection #1 (to-many songs) ↔ Song #4 (to-many collections), as in the layout document.
        let model = try decodeModel("""
            { "version": "music", "entities": [
              { "name": "Collection", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "songs", "destination": "Song", "inverse": "collections", "toMany": true, "ordered": true } ] },
              { "name": "EnergySegment", "attributes": [ { "name": "energy", "type": "double" } ] },
              { "name": "Playlist" },
              { "name": "Song", "attributes": [ { "name": "title", "type": "string" } ],
                "relationships": [ { "name": "collections", "destination": "Collection", "inverse": "songs", "toMany": true } ] } ] }
            """)
        let layout = CoreDataLayout(model: model)
        XCTAssertEqual(layout.entityNumber(of: "Collection"), 1)
        XCTAssertEqual(layout.entityNumber(of: "Song"), 4)
        XCTAssertEqual(layout.storage(ofRelationship: "songs", entity: "Collection"),
                       .joinTable(table: "Z_1SONGS", ownColumn: "Z_1COLLECTIONS", otherColumn: "Z_4SONGS"))
        XCTAssertEqual(layout.storage(ofRelationship: "collections", entity: "Song"),
                       .joinTable(table: "Z_1SONGS", ownColumn: "Z_4SONGS", otherColumn: "Z_1COLLECTIONS"))
        XCTAssertEqual(layout.orderColumn(ofRelationship: "songs", entity: "Collection"), "Z_FOK_4SONGS")
        let db = try emptyStore(layout)
        XCTAssertEqual(try db.columnNames("Z_1SONGS"), ["Z_1COLLECTIONS", "Z_4SONGS", "Z_FOK_4SONGS"])
        let pk = try db.rows("SELECT name FROM pragma_table_info('Z_1SONGS') WHERE pk > 0 ORDER BY pk").compactMap { $0[0].text }
        XCTAssertEqual(pk, ["Z_1COLLECTIONS", "Z_4SONGS"])
    }

    func testFinishWritesPrimaryKeysMetadataAndDerivedColumns() throws {
        let model = try LibraryModelXML.model(for: self)
        var layout = CoreDataLayout(model: model)
        XCTAssertTrue(layout.hasVersionHashes, "computed from the model")
        layout.storeUUID = "0E5B2C1D-0000-4000-8000-000000000001"
        let db = try emptyStore(layout)
        try db.execute("""
            INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZFEATURED) VALUES (1, 1, 1, 'First', 6), (2, 1, 1, 'Second', NULL);
            INSERT INTO ZARTWORK (Z_PK, Z_ENT, Z_OPT, ZALBUM) VALUES (1, 2, 1, 2);
            INSERT INTO ZCOLLECTION (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 3, 1, 'Mix');
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZALBUM) VALUES (2, 5, 1, 'b', 1), (1, 5, 1, 'a', 1), (5, 5, 1, 'c', 2), (6, 6, 1, 'clip', NULL);
            INSERT INTO Z_3ITEMS (Z_3COLLECTIONS, Z_4ITEMS) VALUES (1, 1), (1, 6);
            """)
        try layout.finish(db)

        // Z_PRIMARYKEY: numbers, parents, and a root's Z_MAX = the highest key of its table;
        // sub-entities keep 0, as Core Data writes them (keys come from the root's row).
        let keys = try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        XCTAssertEqual(keys, [
            [.integer(1), .text("Album"), .integer(0), .integer(2)],
            [.integer(2), .text("Artwork"), .integer(0), .integer(1)],
            [.integer(3), .text("Collection"), .integer(0), .integer(1)],
            [.integer(4), .text("Item"), .integer(0), .integer(6)],
            [.integer(5), .text("Song"), .integer(4), .integer(0)],
            [.integer(6), .text("Video"), .integer(4), .integer(0)],
        ])
        for row in keys where row[2] == .integer(0) {
            let table = layout.table(of: row[1].text!).name
            let entityMax = try db.scalarInt("SELECT coalesce(max(Z_PK), 0) FROM \(table) WHERE Z_ENT = ?", [row[0]])
            let tableMax = try db.scalarInt("SELECT coalesce(max(Z_PK), 0) FROM \(table)")
            XCTAssertGreaterThanOrEqual(row[3].int!, max(entityMax, tableMax), "Z_MAX of \(row[1].text!) covers its table's rows")
        }
        // Sub-entities share ZITEM with distinct Z_ENT.
        XCTAssertEqual(try db.rows("SELECT Z_ENT, count(*) FROM ZITEM GROUP BY Z_ENT"), [[.integer(5), .integer(3)], [.integer(6), .integer(1)]])
        // The one-to-one set on Artwork's side only is mirrored on Album's.
        XCTAssertEqual(try db.rows("SELECT Z_PK, ZCOVER FROM ZALBUM ORDER BY Z_PK"), [[.integer(1), .null], [.integer(2), .integer(1)]])
        // The destination's Z_ENT beside a to-one to an entity with sub-entities.
        XCTAssertEqual(try db.rows("SELECT Z4_FEATURED FROM ZALBUM ORDER BY Z_PK"), [[.integer(6)], [.null]])
        // Ordering of an ordered to-many: per album, in key order, numbered as Core Data numbers
        // a list it writes (2048, 3072, …: facts §2).
        XCTAssertEqual(try db.rows("SELECT Z_PK, Z_FOK_ALBUM FROM ZITEM ORDER BY Z_PK"),
                       [[.integer(1), .integer(2048)], [.integer(2), .integer(3072)], [.integer(5), .integer(2048)], [.integer(6), .null]])

        let metadata = try CoreDataMetadata.read(db)
        XCTAssertEqual(metadata.storeUUID, "0E5B2C1D-0000-4000-8000-000000000001")
        XCTAssertEqual(metadata.storeType, "SQLite")
        XCTAssertEqual(metadata.versionIdentifiers, ["library-2"])
        XCTAssertEqual(metadata.frameworkVersion, 1048)
        XCTAssertEqual(metadata.hashesVersion, 3)
        XCTAssertEqual(metadata.versionHashes, try VersionHashes(model: model).entities, "no template: computed from the model")
        XCTAssertEqual(metadata.versionHashesDigest, try VersionHashes(model: model).digest)
        XCTAssertEqual(try db.rows("SELECT Z_VERSION, Z_UUID FROM Z_METADATA"), [[.integer(1), .text("0E5B2C1D-0000-4000-8000-000000000001")]])
        let plist = try XCTUnwrap(try db.rows("SELECT Z_PLIST FROM Z_METADATA").first?[0])
        guard case .blob(let bytes) = plist else { return XCTFail("Z_PLIST is a blob") }
        XCTAssertEqual(Array(bytes.prefix(8)), Array("bplist00".utf8), "a binary property list")

        // Finishing again changes nothing.
        let before = try db.rows("SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT") + db.rows("SELECT * FROM ZITEM ORDER BY Z_PK")
        try layout.finish(db)
        XCTAssertEqual(try db.rows("SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT") + db.rows("SELECT * FROM ZITEM ORDER BY Z_PK"), before)
        XCTAssertEqual(try CoreDataMetadata.read(db), metadata)
    }

    func testFinishKeepsTheStoreUUIDAndRefusesDisagreeingOneToOnes() throws {
        let model = try LibraryModelXML.model(for: self)
        let layout = CoreDataLayout(model: model)
        let db = try emptyStore(layout)
        try db.execute("""
            INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCOVER) VALUES (1, 1, 1, 'A', 1), (2, 1, 1, 'B', NULL);
            INSERT INTO ZARTWORK (Z_PK, Z_ENT, Z_OPT, ZALBUM) VALUES (1, 2, 1, NULL);
            """)
        try layout.finish(db)
        XCTAssertEqual(try db.rows("SELECT ZALBUM FROM ZARTWORK"), [[.integer(1)]], "mirrored from Album's side")
        let uuid = try XCTUnwrap(try CoreDataMetadata.read(db).storeUUID)
        XCTAssertNotNil(UUID(uuidString: uuid))
        try layout.finish(db)
        XCTAssertEqual(try CoreDataMetadata.read(db).storeUUID, uuid, "a second finish keeps the UUID")

        try db.execute("UPDATE ZARTWORK SET ZALBUM = 2")
        XCTAssertThrowsError(try layout.finish(db)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("one-to-one Album.cover ↔ Artwork.album"), text)
            XCTAssertTrue(text.contains("disagree"), text)
        }
        XCTAssertEqual(try db.rows("SELECT ZCOVER FROM ZALBUM ORDER BY Z_PK"), [[.integer(1)], [.null]], "a failed finish writes nothing")
    }

    func testTemplateHashesAreWrittenAndMustFitTheModel() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let reference = try Database(path: SharedFixtures.store("v2.0.0", for: self).path, mode: .readOnly)
        let template = try CoreDataMetadata.read(reference)
        let model = try XCTUnwrap(bundle.version(named: "v2.0.0"))
        let layout = CoreDataLayout(model: model, template: template)
        XCTAssertTrue(layout.hasVersionHashes)
        let db = try emptyStore(layout)
        try db.execute("INSERT INTO ZBASICENTITY (Z_PK, Z_ENT, Z_OPT, ZV2_0_0_NAME) VALUES (7, 1, 1, 'A Known Value')")
        try layout.finish(db)
        let written = try CoreDataMetadata.read(db)
        XCTAssertEqual(written.versionHashes, template.versionHashes)
        XCTAssertEqual(written.versionHashesDigest, template.versionHashesDigest)
        XCTAssertNotEqual(written.storeUUID, template.storeUUID, "a new store gets its own UUID")
        XCTAssertEqual(try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY"), [[.integer(1), .text("BasicEntity"), .integer(0), .integer(7)]])

        // Hashes of another model are refused.
        let other = CoreDataLayout(model: try LibraryModelXML.model(for: self), template: template)
        XCTAssertThrowsError(try other.finish(try emptyStore(other))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the template was not created at model version Library 2"), text)
            XCTAssertTrue(text.contains("entity Album"), text)
        }
    }

    /// The plist round-trips, without the UUID: Core Data keeps it in Z_UUID only (facts §7).
    func testMetadataPlistRoundTrip() throws {
        var metadata = CoreDataMetadata(storeUUID: "U", versionHashes: ["A": Data([1, 2, 3])], versionIdentifiers: ["x", "y"],
                                        versionHashesDigest: "digest", frameworkVersion: 1234)
        let plist = try metadata.encodePlist()
        guard case .dictionary(let keys) = try BinaryPropertyList.read(Array(plist)) else { return XCTFail("not a dictionary") }
        XCTAssertNil(keys["NSStoreUUID"])
        metadata.storeUUID = nil
        XCTAssertEqual(try CoreDataMetadata.decode(plist: plist), metadata)
        // A framework up to 866 wrote no digest.
        metadata.frameworkVersion = 866
        XCTAssertNil(try CoreDataMetadata.decode(plist: metadata.encodePlist()).versionHashesDigest)
    }

    /// An app's own keys (of every plist type) survive decoding and encoding, and the same
    /// metadata is always the same bytes, whatever order its dictionaries were built in.
    func testOtherKeysRoundTripAndThePlistIsTheSameBytesEveryTime() throws {
        let appKeys: [String: Any] = ["com.example.lastSync": Date(timeIntervalSinceReferenceDate: 700_000_000.5),
                                      "com.example.flags": [true, false], "com.example.count": 42, "com.example.ratio": 0.25,
                                      "com.example.nested": ["name": "wörk ✓", "blob": Data([0, 1, 2])],
                                      "com.example.long": String(repeating: "x", count: 40),
                                      "NSStoreModelVersionChecksumKey": "dropped: a checksum of the compiled model"]
        var plist: [String: Any] = ["NSStoreType": "SQLite", "NSStoreModelVersionHashes": ["A": Data([1])],
                                    "NSStoreModelVersionIdentifiers": [""]]
        plist.merge(appKeys) { a, _ in a }
        let decoded = try CoreDataMetadata.decode(plist: PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
        XCTAssertEqual(decoded.otherKeyNames, ["com.example.count", "com.example.flags", "com.example.long", "com.example.nested",
                                               "com.example.ratio", "com.example.lastSync"].sorted())
        let encoded = try decoded.encodePlist()
        let again = try XCTUnwrap(PropertyListSerialization.propertyList(from: encoded, options: [], format: nil) as? [String: Any])
        XCTAssertEqual(again["com.example.count"] as? Int, 42)
        XCTAssertEqual(again["com.example.ratio"] as? Double, 0.25)
        XCTAssertEqual(again["com.example.flags"] as? [Bool], [true, false])
        XCTAssertEqual(again["com.example.lastSync"] as? Date, Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        XCTAssertEqual((again["com.example.nested"] as? [String: Any])?["name"] as? String, "wörk ✓")
        XCTAssertEqual((again["com.example.nested"] as? [String: Any])?["blob"] as? Data, Data([0, 1, 2]))
        XCTAssertEqual(again["com.example.long"] as? String, String(repeating: "x", count: 40))
        XCTAssertNil(again["NSStoreModelVersionChecksumKey"])
        // Built in another order: the same bytes.
        var reordered = decoded
        reordered.versionHashes = [:]
        for (k, v) in decoded.versionHashes.sorted(by: { $0.key > $1.key }) { reordered.versionHashes[k] = v }
        XCTAssertEqual(try reordered.encodePlist(), encoded)
        XCTAssertEqual(try CoreDataMetadata.decode(plist: encoded).encodePlist(), encoded)
    }

    // MARK: Reading names from a store

    func testLayoutReadFromACreatedStoreEqualsTheConventionalOne() throws {
        let model = try LibraryModelXML.model(for: self)
        let conventional = CoreDataLayout(model: model)
        let db = try emptyStore(conventional)
        try conventional.finish(db)
        let read = try CoreDataLayout(model: model, store: db)
        XCTAssertEqual(read.entityNumbers, conventional.entityNumbers)
        XCTAssertEqual(read.schemaSQL(), conventional.schemaSQL())
        for entity in model.entities {
            XCTAssertEqual(read.table(of: entity.name), conventional.table(of: entity.name))
            for a in model.attributes(of: entity.name) {
                XCTAssertEqual(read.column(ofAttribute: a.name, entity: entity.name), conventional.column(ofAttribute: a.name, entity: entity.name))
            }
            for r in model.relationships(of: entity.name) {
                XCTAssertEqual(read.storage(ofRelationship: r.name, entity: entity.name), conventional.storage(ofRelationship: r.name, entity: entity.name))
                XCTAssertEqual(read.orderColumn(ofRelationship: r.name, entity: entity.name), conventional.orderColumn(ofRelationship: r.name, entity: entity.name))
                XCTAssertEqual(read.entityColumn(ofRelationship: r.name, entity: entity.name), conventional.entityColumn(ofRelationship: r.name, entity: entity.name))
            }
        }
    }

    func testReadingFindsDigitsAndEntityNumbersCoreDataChose() throws {
        // Two sub-entities with a `title` each: Core Data gives them ZTITLE1 and ZTITLE2 here;
        // the join table carries this store's entity numbers (Song #2, Collection #7).
        let model = try decodeModel("""
            { "version": "notes", "entities": [
              { "name": "Object", "abstract": true },
              { "name": "Note", "parent": "Object", "attributes": [ { "name": "title", "type": "string" } ] },
              { "name": "Folder", "parent": "Object", "attributes": [ { "name": "title", "type": "string" } ],
                "relationships": [ { "name": "owner", "destination": "Folder" } ] },
              { "name": "Collection", "relationships": [ { "name": "songs", "destination": "Song", "inverse": "collections", "toMany": true } ] },
              { "name": "Song", "relationships": [ { "name": "collections", "destination": "Collection", "inverse": "songs", "toMany": true } ] } ] }
            """)
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("""
            CREATE TABLE ZOBJECT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZOWNER1 INTEGER, ZTITLE1 VARCHAR, ZTITLE2 VARCHAR );
            CREATE TABLE ZCOLLECTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER );
            CREATE TABLE ZSONG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER );
            CREATE TABLE Z_2COLLECTIONS ( Z_2SONGS INTEGER, Z_7COLLECTIONS INTEGER, PRIMARY KEY (Z_2SONGS, Z_7COLLECTIONS) );
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PRIMARYKEY VALUES (2, 'Song', 0, 0), (7, 'Collection', 0, 0), (10, 'Object', 0, 0), (11, 'Folder', 10, 0), (12, 'Note', 10, 0), (13, 'Gone', 0, 0);
            """)
        let layout = try CoreDataLayout(model: model, store: db)
        XCTAssertEqual(layout.entityNumbers, ["Song": 2, "Collection": 7, "Object": 10, "Folder": 11, "Note": 12])
        XCTAssertEqual(layout.table(of: "Note").discriminator?.value, .integer(12))
        XCTAssertEqual(layout.column(ofAttribute: "title", entity: "Folder"), "ZTITLE1", "Folder (#11) comes first")
        XCTAssertEqual(layout.column(ofAttribute: "title", entity: "Note"), "ZTITLE2")
        XCTAssertEqual(layout.storage(ofRelationship: "owner", entity: "Folder"), .foreignKey(table: "ZOBJECT", column: "ZOWNER1"))
        XCTAssertEqual(layout.storage(ofRelationship: "songs", entity: "Collection"),
                       .joinTable(table: "Z_2COLLECTIONS", ownColumn: "Z_7COLLECTIONS", otherColumn: "Z_2SONGS"))
        XCTAssertEqual(layout.storage(ofRelationship: "collections", entity: "Song"),
                       .joinTable(table: "Z_2COLLECTIONS", ownColumn: "Z_2SONGS", otherColumn: "Z_7COLLECTIONS"))

        try db.execute("DROP TABLE Z_2COLLECTIONS")
        XCTAssertThrowsError(try CoreDataLayout(model: model, store: db)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("many-to-many Song.collections ↔ Collection.songs: no join table Z_2COLLECTIONS or Z_7SONGS with columns Z_2SONGS, Z_7COLLECTIONS"), text)
        }
    }
}
