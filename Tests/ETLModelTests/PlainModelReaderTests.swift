import XCTest
import ETLStore
@testable import ETLModel

/// A store written by hand, as a user's app would, read back as a model.
final class PlainModelReaderTests: XCTestCase {
    func testAHandWrittenStoreBecomesAModel() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("""
            CREATE TABLE Folder (id INTEGER PRIMARY KEY, title TEXT NOT NULL, archived BOOLEAN, created DATETIME);
            CREATE TABLE Note (id INTEGER PRIMARY KEY, body TEXT, link URL, score NUMERIC, attachment BLOB,
                               folder_id INTEGER REFERENCES Folder(id));
            CREATE TABLE Category (id INTEGER PRIMARY KEY, name VARCHAR(40));
            CREATE TABLE Note_categories (source_id INTEGER NOT NULL REFERENCES Note(id), target_id INTEGER NOT NULL REFERENCES Category(id),
                                          PRIMARY KEY (source_id, target_id)) WITHOUT ROWID;
            """)
        let model = try PlainModelReader.read(db, version: "notes-v1")
        XCTAssertEqual(model.entities.map(\.name), ["Folder", "Note", "Category"])
        XCTAssertEqual(model.attributes(of: "Folder"), [Attribute(name: "title", type: .string, isOptional: false),
                                                        Attribute(name: "archived", type: .boolean), Attribute(name: "created", type: .date)])
        XCTAssertEqual(model.attributes(of: "Note").map(\.type), [.string, .uri, .double, .binary])
        XCTAssertEqual(model.relationship("folder", of: "Note"), Relationship(name: "folder", destination: "Folder"))
        // An inverse Category.notes would sort before Note.categories and name the table
        // Category_notes: the store's table says there is none.
        XCTAssertEqual(model.relationship("categories", of: "Note"), Relationship(name: "categories", destination: "Category", isToMany: true))
        XCTAssertNil(model.relationship("notes", of: "Category"))
        // The model lays out the same tables again.
        let again = try Database(path: ":memory:", mode: .create)
        for sql in PlainLayout(model: model).schemaSQL() { try again.execute(sql) }
        XCTAssertEqual(try again.tables().map(\.name), ["Category", "Folder", "Note", "Note_categories"])
        XCTAssertEqual(PlainModelReader.plural(of: "Category"), "categories")
        XCTAssertEqual(PlainModelReader.plural(of: "Box"), "boxes")
    }

    func testATableWithoutAnIDKeyIsNamed() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE Log (at REAL, line TEXT)")
        XCTAssertThrowsError(try PlainModelReader.read(db, version: "v1")) { error in
            XCTAssertTrue("\(error)".contains("table Log has no id INTEGER PRIMARY KEY"), "\(error)")
        }
    }
}
