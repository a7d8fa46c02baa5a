import Foundation
import XCTest
import ETLStore
@testable import ETLModel
import ETLTestSupport

/// The store etl creates for a model of the test's own has the tables, columns and indexes
/// Core Data creates for it (../shared/docs/coredata-layout-facts.md, §1 and §4).
final class CoreDataLayoutFactsTests: XCTestCase {
    func model(_ body: String) throws -> Model {
        try XCDataModelReader.read(Data(ModelBundleFiles.model(body).utf8), file: "facts/contents", version: "facts")
    }

    /// name → CREATE statement of every index Core Data would have written (not SQLite's own).
    func indexes(_ layout: CoreDataLayout) throws -> [String: String] {
        let db = try Database(path: ":memory:", mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") {
            result[row[0].text!] = row[1].text!
        }
        return result
    }

    static let indexedModel = """
        <entity name="Author" representedClassName="Author">
            <attribute name="born" optional="YES" attributeType="Date"/>
            <attribute name="email" optional="YES" attributeType="String"/>
            <attribute name="name" optional="YES" attributeType="String" indexed="YES"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <compoundIndexes>
                <compoundIndex>
                    <index value="name"/>
                    <index value="born"/>
                </compoundIndex>
                <compoundIndex>
                </compoundIndex>
            </compoundIndexes>
            <fetchIndex name="byEmail">
                <fetchIndexElement property="email" type="Binary" order="ascending"/>
            </fetchIndex>
            <fetchIndex name="byNameAndBirth">
                <fetchIndexElement property="name" type="Binary" order="ascending"/>
                <fetchIndexElement property="born" type="Binary" order="descending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="email"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <entity name="Novel" representedClassName="Novel" parentEntity="Book">
            <attribute name="genre" optional="YES" attributeType="String" indexed="YES"/>
        </entity>
        """

    /// Every index of §4, in the forms of a framework from 847 on (etl claims 1048): an
    /// indexed attribute, a compound index (an emptied one makes none), a one-element fetch
    /// index and its twin on the attribute, a fetch index of two, a uniqueness constraint,
    /// a to-one, the Z_ENT of a shared table, an attribute of a sub-entity under its own name.
    func testTheIndexesOfAFrameworkFrom847On() throws {
        let layout = CoreDataLayout(model: try model(Self.indexedModel))
        XCTAssertEqual(layout.frameworkVersion, 1048)
        XCTAssertEqual(try indexes(layout), [
            "Z_Author_name": "CREATE INDEX Z_Author_name ON ZAUTHOR (ZNAME COLLATE BINARY ASC)",
            "Z_Author_email": "CREATE INDEX Z_Author_email ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "Z_Author_name_born": "CREATE INDEX Z_Author_name_born ON ZAUTHOR (ZNAME COLLATE BINARY ASC, ZBORN COLLATE BINARY ASC)",
            "Z_Author_byEmail": "CREATE INDEX Z_Author_byEmail ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "Z_Author_byNameAndBirth": "CREATE INDEX Z_Author_byNameAndBirth ON ZAUTHOR (ZNAME COLLATE BINARY ASC, ZBORN COLLATE BINARY DESC)",
            "Z_Author_UNIQUE_email": "CREATE UNIQUE INDEX Z_Author_UNIQUE_email ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "ZBOOK_Z_ENT_INDEX": "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
            "ZBOOK_ZAUTHOR_INDEX": "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
            "Z_Novel_genre": "CREATE INDEX Z_Novel_genre ON ZBOOK (ZGENRE COLLATE BINARY ASC)",
        ])
    }

    /// A layout claiming a framework up to 754 (a template's metadata) writes that
    /// framework's forms of indexed attributes and compound indexes.
    func testTheIndexesOfAnOldFramework() throws {
        let old = """
            <entity name="Author">
                <attribute name="born" optional="YES" attributeType="Date"/>
                <attribute name="name" optional="YES" attributeType="String" indexed="YES"/>
                <compoundIndexes><compoundIndex><index value="name"/><index value="born"/></compoundIndex></compoundIndexes>
            </entity>
            """
        let layout = CoreDataLayout(model: try model(old), template: CoreDataMetadata(frameworkVersion: 754))
        XCTAssertEqual(try indexes(layout), [
            "ZAUTHOR_ZNAME_INDEX": "CREATE INDEX ZAUTHOR_ZNAME_INDEX ON ZAUTHOR (ZNAME)",
            "ZAUTHOR_ZNAME_ZBORN": "CREATE INDEX ZAUTHOR_ZNAME_ZBORN ON ZAUTHOR (ZNAME, ZBORN)",
        ])
    }

    /// A compound index naming no property of the entity is refused, naming it.
    func testACompoundIndexOfAnUnknownPropertyIsRefused() {
        let bad = """
            <entity name="Author">
                <attribute name="name" optional="YES" attributeType="String"/>
                <compoundIndexes><compoundIndex><index value="nmae"/></compoundIndex></compoundIndexes>
            </entity>
            """
        XCTAssertThrowsError(try model(bad)) { error in
            XCTAssertTrue("\(error)".contains("a compound index names 'nmae'"), "\(error)")
        }
    }
}
