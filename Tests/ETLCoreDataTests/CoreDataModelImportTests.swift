import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

/// A hand-written Xcode model: an abstract parent with two sub-entities, every attribute
/// type, defaults, to-one / to-many / ordered / many-to-many / one-to-one relationships.
enum LibraryModelXML {
    static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="library-2">
        <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES" elementID="Thing">
            <attribute name="title" attributeType="String" defaultValueString="untitled"/>
            <attribute name="created" optional="YES" attributeType="Date" defaultDateTimeInterval="0" usesScalarValueType="NO"/>
            <relationship name="collections" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Collection" inverseName="items" inverseEntity="Collection"/>
        </entity>
        <entity name="Song" representedClassName="Song" parentEntity="Item" syncable="YES">
            <attribute name="duration" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="plays" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="track" optional="YES" attributeType="Integer 16" defaultValueString="1" usesScalarValueType="YES"/>
            <attribute name="bpm" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="rating" optional="YES" attributeType="Float" defaultValueString="2.5" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.99"/>
            <attribute name="explicit" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <attribute name="artwork" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="uuid" optional="YES" attributeType="UUID" usesScalarValueType="NO" elementID="identifier"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
            <attribute name="cached" optional="YES" transient="YES" attributeType="String"/>
            <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="songs" inverseEntity="Album" elementID="record"/>
        </entity>
        <entity name="Video" representedClassName="Video" parentEntity="Item" syncable="YES">
            <attribute name="resolution" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Album" representedClassName="Album" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="songs" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Song" inverseName="album" inverseEntity="Song"/>
            <relationship name="cover" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="Artwork" inverseName="album" inverseEntity="Artwork"/>
            <relationship name="featured" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item"/>
        </entity>
        <entity name="Artwork" representedClassName="Artwork" syncable="YES">
            <attribute name="data" optional="YES" attributeType="Binary"/>
            <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="cover" inverseEntity="Album"/>
        </entity>
        <entity name="Collection" representedClassName="Collection" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" minCount="1" maxCount="50" deletionRule="Nullify" destinationEntity="Item" inverseName="collections" inverseEntity="Item"/>
        </entity>
        <fetchRequest name="AllSongs" entity="Song"/>
        <configuration name="Cloud" usedWithCloudKit="YES">
            <memberEntity name="Album"/>
        </configuration>
        <elements>
            <element name="Item" positionX="0" positionY="0" width="128" height="44"/>
        </elements>
    </model>
    """

    /// Writes `xml` as `<folder>/<version>.xcdatamodel/contents` and returns the version folder.
    static func write(_ xml: String, version: String = "Library 2", in folder: URL) throws -> URL {
        try ModelBundleFiles.write(folder, versions: [(version, xml)])
        return folder.appendingPathComponent("\(version).xcdatamodel", isDirectory: true)
    }

    static func model(for test: XCTestCase) throws -> Model {
        try ModelBundle.loadVersion(path: write(contents, in: SharedFixtures.temporaryFolder(for: test)).path)
    }
}

final class CoreDataModelImportTests: XCTestCase {
    // MARK: The fixture bundle

    func testFixtureBundleImportsFiveVersionsWithTheCurrentOne() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        XCTAssertEqual(bundle.versions.map(\.version), SharedFixtures.chainVersions)
        XCTAssertEqual(bundle.currentVersion, "v2.0.0")
        XCTAssertEqual(bundle.current?.version, "v2.0.0")
        for model in bundle.versions {
            XCTAssertEqual(model.entities.map(\.name), ["BasicEntity"], model.version)
            let entity = try XCTUnwrap(model.entity(named: "BasicEntity"))
            let expected = model.version.dropFirst().replacingOccurrences(of: ".", with: "_") + "_name"
            XCTAssertEqual(entity.attributes.map(\.name), ["v" + expected], model.version)
            XCTAssertEqual(entity.attributes.first?.type, .string)
            XCTAssertEqual(entity.attributes.first?.isOptional, true)
            XCTAssertNil(entity.renamingIdentifier)
            XCTAssertEqual(model.versionIdentifiers, [""], "userDefinedModelVersionIdentifier=\"\"")
        }
    }

    func testRenamingIdentifiersChainEachVersionToThePreviousOne() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let identifiers = bundle.versions.map { $0.entities[0].attributes[0].renamingIdentifier }
        XCTAssertEqual(identifiers, [nil, "v1_0_0_name", "v1_1_0_name", "v1_1_2_name", "v1_2_0_name"])
        for (previous, next) in zip(bundle.versions, bundle.versions.dropFirst()) {
            XCTAssertEqual(next.entities[0].attributes[0].renamingIdentifier, previous.entities[0].attributes[0].name,
                           "\(next.version) names \(previous.version)'s attribute")
        }
    }

    func testLoadVersionAcceptsTheFolderOrItsContentsFile() throws {
        let folder = try SharedFixtures.copy("coredata-rename-chain/Model.xcdatamodeld", for: self)
        let versionFolder = folder.appendingPathComponent("v1.1.2.xcdatamodel")
        let a = try ModelBundle.loadVersion(path: versionFolder.path)
        let b = try ModelBundle.loadVersion(path: versionFolder.appendingPathComponent("contents").path)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.version, "v1.1.2")
        XCTAssertEqual(try ModelBundle.load(path: folder.path).version(named: "v1.1.2.xcdatamodel"), a)
    }

    func testBundleOrderIsNumericAndCurrentVersionMustExist() throws {
        let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Notes.xcdatamodeld")
        for name in ["Notes 10", "Notes", "Notes 2"] {
            _ = try LibraryModelXML.write(#"<model><entity name="Note"/></model>"#, version: name, in: folder)
        }
        var bundle = try ModelBundle.load(path: folder.path)
        XCTAssertEqual(bundle.versions.map(\.version), ["Notes", "Notes 2", "Notes 10"])
        XCTAssertNil(bundle.currentVersion, "no .xccurrentversion")

        let marker = folder.appendingPathComponent(".xccurrentversion")
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Notes 2.xcdatamodel"], format: .xml, options: 0)
        try plist.write(to: marker)
        bundle = try ModelBundle.load(path: folder.path)
        XCTAssertEqual(bundle.currentVersion, "Notes 2")

        let wrong = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Notes 3.xcdatamodel"], format: .xml, options: 0)
        try wrong.write(to: marker)
        XCTAssertThrowsError(try ModelBundle.load(path: folder.path)) { error in
            let e = error as? DocumentError
            XCTAssertEqual(e?.file, marker.path)
            XCTAssertTrue(e?.message.contains("Notes 3.xcdatamodel") == true, "\(error)")
            XCTAssertTrue(e?.message.contains("Notes 10") == true, "lists the versions: \(error)")
        }
    }

    /// `.xccurrentversion` comes with the bundle from whoever sent it: read as Xcode writes it
    /// (XML, with a DOCTYPE and whitespace, or binary) by etl's own readers, never by
    /// Foundation's property-list reader; a file they cannot read is refused, naming it.
    func testTheCurrentVersionFileIsReadByEtlsOwnReaders() throws {
        let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Notes.xcdatamodeld")
        for name in ["Notes", "Notes 2"] {
            _ = try LibraryModelXML.write(#"<model><entity name="Note"/></model>"#, version: name, in: folder)
        }
        let marker = folder.appendingPathComponent(".xccurrentversion")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            	<key>_XCCurrentVersionName</key>
            	<string>Notes 2.xcdatamodel</string>
            	<key>other</key>
            	<dict><key>_XCCurrentVersionName</key><string>Notes.xcdatamodel</string></dict>
            </dict>
            </plist>
            """.utf8).write(to: marker)
        XCTAssertEqual(try ModelBundle.load(path: folder.path).currentVersion, "Notes 2")

        var plist = PropertyListBuilder()
        let top = plist.dictionary([(plist.string("_XCCurrentVersionName"), plist.string("Notes.xcdatamodel"))])
        try Data(plist.bytes(top: top)).write(to: marker)
        XCTAssertEqual(try ModelBundle.load(path: folder.path).currentVersion, "Notes", "a binary property list")

        let refused: [(String, [UInt8])] = [
            ("a processing instruction", Array("<?xml version=\"1.0\"?><?x?><plist><dict></dict></plist>".utf8)),
            ("not UTF-8", Array("<plist><dict><key>_XCCurrentVersionName</key><string>".utf8) + [0xFF, 0xFE] + Array("</string></dict></plist>".utf8)),
            ("not well-formed", Array("<plist><dict></plist></dict>".utf8)),
            ("no <plist> element", Array("<dict><key>_XCCurrentVersionName</key><string>Notes</string></dict>".utf8)),
            ("no _XCCurrentVersionName string", Array("<plist><array><string>Notes.xcdatamodel</string></array></plist>".utf8)),
            ("not a property list", Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40)),
            ("more than any .xccurrentversion holds", [UInt8](repeating: 0x20, count: 65 * 1024)),
        ]
        for (reason, bytes) in refused {
            try Data(bytes).write(to: marker)
            XCTAssertThrowsError(try ModelBundle.load(path: folder.path), reason) { error in
                XCTAssertEqual((error as? DocumentError)?.file, marker.path, reason)
                XCTAssertTrue("\(error)".contains(reason), "\(reason): \(error)")
            }
        }
    }

    func testMissingBundleAndEmptyBundleAreDocumentErrors() throws {
        let folder = try SharedFixtures.temporaryFolder(for: self)
        let missing = folder.appendingPathComponent("Nope.xcdatamodeld").path
        XCTAssertThrowsError(try ModelBundle.load(path: missing)) { error in
            XCTAssertEqual((error as? DocumentError)?.file, missing)
        }
        XCTAssertThrowsError(try ModelBundle.load(path: folder.path)) { error in
            XCTAssertTrue("\(error)".contains("no Version.xcdatamodel"), "\(error)")
        }
    }

    /// A version that cannot be read refuses only itself: the bundle keeps the others and
    /// names it, with its file:line, when it is asked for.
    func testAnUnreadableVersionIsKeptApartWithItsFileAndLine() throws {
        let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Notes.xcdatamodeld")
        _ = try LibraryModelXML.write(#"<model><entity name="Note"/></model>"#, version: "Notes", in: folder)
        _ = try LibraryModelXML.write("<model>\n<entity name=\"Note\">\n<attribute name=\"a\" attributeType=\"Integer 16\" defaultValueString=\"many\"/></entity></model>",
                                      version: "Notes 2", in: folder)
        _ = try LibraryModelXML.write(#"<model><entity name="Note"><attribute name="b" optional="YES" attributeType="String"/></entity></model>"#, version: "Notes 3", in: folder)
        let bundle = try ModelBundle.load(path: folder.path)
        XCTAssertEqual(bundle.names, ["Notes", "Notes 2", "Notes 3"])
        XCTAssertEqual(bundle.versions.map(\.version), ["Notes", "Notes 3"])
        XCTAssertEqual(try bundle.model(named: "Notes 3")?.version, "Notes 3")
        XCTAssertNil(try bundle.model(named: "Notes 4"))
        XCTAssertThrowsError(try bundle.model(named: "Notes 2")) { error in
            let e = error as? DocumentError
            XCTAssertEqual(e?.file, folder.appendingPathComponent("Notes 2.xcdatamodel/contents").path)
            XCTAssertEqual(e?.line, 3)
            XCTAssertTrue(e?.message.contains("'many' is not a valid default") == true, "\(error)")
        }
    }

    /// What Xcode accepts and Core Data compiles: a NO/YES default on an integer attribute
    /// (0/1), a default on a Transformable attribute (ignored), a fetch index element on a
    /// to-many relationship (no column: left out).
    func testDefaultsAndIndexesReadAsCoreDataReadsThem() throws {
        let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Tags.xcdatamodeld")
        let version = try LibraryModelXML.write("""
            <model>
            <entity name="Tag">
                <attribute name="hidden" optional="YES" attributeType="Integer 16" defaultValueString="NO"/>
                <attribute name="pinned" optional="YES" attributeType="Integer 64" defaultValueString="YES"/>
                <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="colors" optional="YES" attributeType="Transformable" defaultValueString="[red]"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" destinationEntity="Note" inverseName="tag"/>
                <fetchIndex name="byNotes"><fetchIndexElement property="notes" type="Binary" order="ascending"/></fetchIndex>
                <fetchIndex name="byNameAndNotes">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                    <fetchIndexElement property="notes" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            <entity name="Note"><relationship name="tag" optional="YES" maxCount="1" destinationEntity="Tag" inverseName="notes"/></entity>
            </model>
            """, version: "Tags", in: folder)
        let model = try ModelBundle.loadVersion(path: version.path)
        let tag = try XCTUnwrap(model.entity(named: "Tag"))
        XCTAssertEqual(tag.attributes.map(\.defaultValue), [.integer(0), .integer(1), .integer(1), nil, nil])
        XCTAssertEqual(tag.fetchIndexes, [FetchIndex(name: "byNameAndNotes", elements: [FetchIndex.Element(property: "name", isAscending: true)])])
    }

    // MARK: A hand-written model

    func testEntitiesInheritanceAndRenamingIdentifiers() throws {
        let model = try LibraryModelXML.model(for: self)
        XCTAssertEqual(model.version, "Library 2")
        XCTAssertEqual(model.versionIdentifiers, ["library-2"])
        XCTAssertEqual(model.entities.map(\.name), ["Item", "Song", "Video", "Album", "Artwork", "Collection"])
        let item = try XCTUnwrap(model.entity(named: "Item"))
        XCTAssertTrue(item.isAbstract)
        XCTAssertNil(item.parent)
        XCTAssertEqual(item.renamingIdentifier, "Thing")
        XCTAssertEqual(model.entity(named: "Song")?.parent, "Item")
        XCTAssertEqual(model.entity(named: "Video")?.parent, "Item")
        XCTAssertEqual(model.entity(named: "Song")?.isAbstract, false)
        XCTAssertEqual(model.descendants(of: "Item"), ["Item", "Song", "Video"])
        XCTAssertEqual(model.attributes(of: "Video").map(\.name), ["title", "created", "resolution"], "inherited first")
    }

    func testEveryAttributeTypeOptionalityAndDefault() throws {
        let model = try LibraryModelXML.model(for: self)
        let song = try XCTUnwrap(model.entity(named: "Song"))
        let expected: [(String, AttributeType, Bool, SQLValue?)] = [
            ("duration", .double, true, .real(0)),
            ("plays", .integer64, false, .integer(0)),
            ("track", .integer16, true, .integer(1)),
            ("bpm", .integer32, true, nil),
            ("rating", .float, true, .real(2.5)),
            ("price", .decimal, true, .real(0.99)),
            ("explicit", .boolean, false, .integer(0)),
            ("artwork", .binary, true, nil),
            ("uuid", .uuid, true, nil),
            ("link", .uri, true, nil),
            ("tags", .transformable, true, nil),
        ]
        XCTAssertEqual(song.attributes.map(\.name), expected.map(\.0), "the transient attribute 'cached' is not stored, so not imported")
        for (name, type, optional, value) in expected {
            let a = try XCTUnwrap(song.attributes.first { $0.name == name }, name)
            XCTAssertEqual(a.type, type, name)
            XCTAssertEqual(a.isOptional, optional, name)
            XCTAssertEqual(a.defaultValue, value, name)
        }
        XCTAssertEqual(song.attributes.first { $0.name == "uuid" }?.renamingIdentifier, "identifier")

        let item = try XCTUnwrap(model.entity(named: "Item"))
        XCTAssertEqual(item.attributes[0], Attribute(name: "title", type: .string, isOptional: false, defaultValue: .text("untitled")),
                       "no optional=\"YES\" means required")
        XCTAssertEqual(item.attributes[1].type, .date)
        XCTAssertEqual(item.attributes[1].defaultValue, .real(978_307_200), "defaultDateTimeInterval counts from 2001; the model counts from 1970")
        XCTAssertEqual(Set(AttributeType.allCases), Set(model.entities.flatMap(\.attributes).map(\.type)), "every type is covered")
    }

    func testRelationshipsOfEveryKind() throws {
        let model = try LibraryModelXML.model(for: self)
        XCTAssertEqual(model.relationship("album", of: "Song"),
                       Relationship(name: "album", destination: "Album", inverse: "songs", isToMany: false, isOrdered: false,
                                    isOptional: true, minCount: nil, maxCount: 1, renamingIdentifier: "record"))
        XCTAssertEqual(model.relationship("songs", of: "Album"),
                       Relationship(name: "songs", destination: "Song", inverse: "album", isToMany: true, isOrdered: true, isOptional: true))
        XCTAssertEqual(model.relationship("items", of: "Collection"),
                       Relationship(name: "items", destination: "Item", inverse: "collections", isToMany: true,
                                    isOptional: true, minCount: 1, maxCount: 50))
        XCTAssertEqual(model.relationship("collections", of: "Song")?.destination, "Collection", "inherited from Item")
        XCTAssertEqual(model.relationship("cover", of: "Album")?.inverse, "album")
        XCTAssertEqual(model.relationship("album", of: "Artwork")?.isToMany, false)
        XCTAssertNil(model.relationship("featured", of: "Album")?.inverse)
    }

    // MARK: Errors

    private func assertDocumentError(_ xml: String, line expectedLine: Int? = nil, _ parts: String...,
                                     file: StaticString = #filePath, testLine: UInt = #line) throws {
        let folder = try LibraryModelXML.write(xml, version: "Broken", in: SharedFixtures.temporaryFolder(for: self))
        let contents = folder.appendingPathComponent("contents").path
        do {
            let model = try ModelBundle.loadVersion(path: folder.path)
            XCTFail("expected an error, imported \(model.entities.map(\.name))", file: file, line: testLine)
        } catch let error as DocumentError {
            XCTAssertEqual(error.file, contents, file: file, line: testLine)
            XCTAssertGreaterThan(error.line, 0, "\(error)", file: file, line: testLine)
            if let expectedLine { XCTAssertEqual(error.line, expectedLine, "\(error)", file: file, line: testLine) }
            XCTAssertTrue(error.description.hasPrefix("\(contents):\(error.line):\(error.column): "), error.description, file: file, line: testLine)
            for part in parts {
                XCTAssertTrue(error.description.contains(part), "'\(error)' should contain '\(part)'", file: file, line: testLine)
            }
        }
    }

    func testMalformedXMLNamesFileAndLine() throws {
        try assertDocumentError("""
            <?xml version="1.0" encoding="UTF-8"?>
            <model>
                <entity name="Note">
                    <attribute name="title" attributeType="String">
                </entity>
            </model>
            """, line: 5, "not a well-formed Xcode model", "an end tag does not match its start tag",
            "/model/entity/attribute")
        try assertDocumentError("<model><entity name=\"Note\"", line: 1, "not a well-formed Xcode model")
    }

    func testUnknownAttributeTypeNamesEntityAndAttribute() throws {
        try assertDocumentError("""
            <?xml version="1.0" encoding="UTF-8"?>
            <model>
                <entity name="Note">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <attribute name="count" attributeType="Integer 128"/>
                </entity>
            </model>
            """, line: 5, "/model/entity[@name='Note']/attribute[@name='count']", "Note.count", "unknown attributeType 'Integer 128'",
            "did you mean 'Integer 16'?")
    }

    func testUnknownDestinationAndParentAreErrors() throws {
        try assertDocumentError("""
            <model>
                <entity name="Note">
                    <relationship name="folder" optional="YES" maxCount="1" destinationEntity="Foldr"/>
                </entity>
                <entity name="Folder"/>
            </model>
            """, line: 3, "Note.folder", "unknown entity 'Foldr'", "did you mean 'Folder'?")
        try assertDocumentError("""
            <model>
                <entity name="Note" parentEntity="Thing"/>
            </model>
            """, line: 2, "entity Note", "unknown entity 'Thing'")
        try assertDocumentError("<model><entity name=\"Note\"/><entity name=\"Note\"/></model>", "duplicate entity 'Note'")
        try assertDocumentError("<plist><dict/></plist>", "no <model> element")
    }
}
