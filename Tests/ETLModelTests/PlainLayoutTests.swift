import XCTest
import ETLStore
import ETLModel

final class PlainLayoutTests: XCTestCase {
    private func books(_ version: Int) throws -> PlainLayout {
        PlainLayout(model: try PackageFiles.books(version))
    }

    private func columns(_ db: Database, _ table: String) throws -> [String] {
        try db.table(named: table)?.columns.map(\.name) ?? []
    }

    /// (column, referenced table) for each foreign key of `table`.
    private func foreignKeys(_ db: Database, _ table: String) throws -> [String] {
        try db.rows("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY \"from\"", [.text(table)]).map { row in
            row.map { if case .text(let s) = $0 { return s } else { return "?" } }.joined(separator: "->")
        }
    }

    private func indexes(_ db: Database) throws -> [String] {
        try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").map {
            if case .text(let s) = $0[0] { return s } else { return "?" }
        }
    }

    // MARK: Relationship storage in the books models

    func testManyToManyIsOneJoinTableSharedByBothSides() throws {
        for version in [1, 2] {
            let layout = try books(version)
            XCTAssertEqual(layout.storage(ofRelationship: "users", entity: "Book"),
                           .joinTable(table: "Book_users", ownColumn: "source_id", otherColumn: "target_id"), "v\(version)")
            XCTAssertEqual(layout.storage(ofRelationship: "books", entity: "User"),
                           .joinTable(table: "Book_users", ownColumn: "target_id", otherColumn: "source_id"), "v\(version)")
        }
        for version in [2, 3] {
            let layout = try books(version)
            // "Author.books" sorts before "Book.authors": the table is named after Author's side.
            XCTAssertEqual(layout.storage(ofRelationship: "books", entity: "Author"),
                           .joinTable(table: "Author_books", ownColumn: "source_id", otherColumn: "target_id"), "v\(version)")
            XCTAssertEqual(layout.storage(ofRelationship: "authors", entity: "Book"),
                           .joinTable(table: "Author_books", ownColumn: "target_id", otherColumn: "source_id"), "v\(version)")
        }
    }

    func testOneToManyIsAForeignKeyOnTheToOneSide() throws {
        let layout = try books(3)
        XCTAssertEqual(layout.storage(ofRelationship: "book", entity: "File"), .foreignKey(table: "File", column: "book_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "files", entity: "Book"), .inverseForeignKey(table: "File", column: "book_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "user", entity: "File"), .foreignKey(table: "File", column: "user_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "files", entity: "User"), .inverseForeignKey(table: "File", column: "user_id"))
    }

    func testEveryInversePairSharesOneStorage() throws {
        for version in [1, 2, 3] {
            let layout = try books(version)
            for entity in layout.model.entities {
                for r in entity.relationships {
                    let inverse = try XCTUnwrap(layout.model.inverse(of: r))
                    let mine = layout.storage(ofRelationship: r.name, entity: entity.name)
                    let theirs = layout.storage(ofRelationship: inverse.name, entity: r.destination)
                    switch (mine, theirs) {
                    case let (.joinTable(t1, own1, other1), .joinTable(t2, own2, other2)):
                        XCTAssertEqual(t1, t2)
                        XCTAssertEqual(own1, other2, "own and other columns are swapped")
                        XCTAssertEqual(other1, own2)
                        XCTAssertNotEqual(own1, other1)
                    case let (.foreignKey(t1, c1), .inverseForeignKey(t2, c2)), let (.inverseForeignKey(t1, c1), .foreignKey(t2, c2)):
                        XCTAssertEqual(t1, t2)
                        XCTAssertEqual(c1, c2)
                    default:
                        XCTFail("v\(version) \(entity.name).\(r.name): \(mine) and \(inverse.name): \(theirs) do not share one storage")
                    }
                }
            }
        }
    }

    func testOneToOneStoresASingleColumnOnTheSideThatSortsFirst() throws {
        // "Passport.holder" < "Person.passport", whatever the declaration order.
        let layout = PlainLayout(model: try decodeModel("""
            {"version": "v1", "entities": [
              {"name": "Person", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "passport", "destination": "Passport", "inverse": "holder"}]},
              {"name": "Passport", "attributes": [{"name": "number", "type": "string"}],
               "relationships": [{"name": "holder", "destination": "Person", "inverse": "passport"}]}
            ]}
            """))
        XCTAssertEqual(layout.storage(ofRelationship: "holder", entity: "Passport"), .foreignKey(table: "Passport", column: "holder_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "passport", entity: "Person"), .inverseForeignKey(table: "Passport", column: "holder_id"))
        let db = try emptyStore(layout)
        XCTAssertEqual(try columns(db, "Person"), ["id", "name"])
        XCTAssertEqual(try columns(db, "Passport"), ["id", "number", "holder_id"])
        XCTAssertEqual(try foreignKeys(db, "Passport"), ["holder_id->Person->id"])

        // The other way round: the relationship name decides when the entity names tie.
        let selfLayout = PlainLayout(model: try decodeModel("""
            {"version": "v1", "entities": [
              {"name": "Node", "relationships": [
                {"name": "previous", "destination": "Node", "inverse": "next"},
                {"name": "next", "destination": "Node", "inverse": "previous"}]}
            ]}
            """))
        XCTAssertEqual(selfLayout.storage(ofRelationship: "next", entity: "Node"), .foreignKey(table: "Node", column: "next_id"))
        XCTAssertEqual(selfLayout.storage(ofRelationship: "previous", entity: "Node"), .inverseForeignKey(table: "Node", column: "next_id"))
        XCTAssertEqual(try columns(try emptyStore(selfLayout), "Node"), ["id", "next_id"])
    }

    func testRelationshipsWithoutInverse() throws {
        let layout = PlainLayout(model: try decodeModel("""
            {"version": "v1", "entities": [
              {"name": "Tag"},
              {"name": "Note", "relationships": [
                {"name": "tags", "destination": "Tag", "toMany": true},
                {"name": "primaryTag", "destination": "Tag"}]}
            ]}
            """))
        XCTAssertEqual(layout.storage(ofRelationship: "tags", entity: "Note"),
                       .joinTable(table: "Note_tags", ownColumn: "source_id", otherColumn: "target_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "primaryTag", entity: "Note"), .foreignKey(table: "Note", column: "primaryTag_id"))
        let db = try emptyStore(layout)
        XCTAssertEqual(try db.tables().map(\.name), ["Note", "Note_tags", "Tag"])
        XCTAssertEqual(try foreignKeys(db, "Note_tags"), ["source_id->Note->id", "target_id->Tag->id"])
        XCTAssertEqual(try columns(db, "Note"), ["id", "primaryTag_id"])
    }

    // MARK: Schema

    func testSchemaOfBooksV1() throws {
        let db = try emptyStore(try books(1))
        XCTAssertEqual(try db.tables().map(\.name), ["Book", "Book_users", "User"])
        XCTAssertEqual(try columns(db, "User"), ["id", "userId", "name"])
        XCTAssertEqual(try columns(db, "Book"), ["id", "title", "authorName", "fileURL", "published", "price"])
        XCTAssertEqual(try db.table(named: "Book")?.columns.map(\.declaredType), ["INTEGER", "VARCHAR", "VARCHAR", "URI VARCHAR", "TIMESTAMP", "REAL"])
        XCTAssertEqual(try columns(db, "Book_users"), ["source_id", "target_id"])
        XCTAssertEqual(try foreignKeys(db, "Book_users"), ["source_id->Book->id", "target_id->User->id"])
        XCTAssertEqual(try indexes(db), ["Book_users_target_index"])
    }

    func testSchemaOfBooksV3() throws {
        let db = try emptyStore(try books(3))
        XCTAssertEqual(try db.tables().map(\.name), ["Author", "Author_books", "Book", "File", "User"])
        XCTAssertEqual(try columns(db, "File"), ["id", "fileURL", "book_id", "user_id"])
        XCTAssertEqual(try db.table(named: "File")?.columns.map(\.declaredType), ["INTEGER", "URI VARCHAR", "INTEGER", "INTEGER"])
        XCTAssertEqual(try columns(db, "Book"), ["id", "title", "published", "price"], "to-many sides add no column")
        XCTAssertEqual(try columns(db, "User"), ["id", "userId", "name"])
        XCTAssertEqual(try foreignKeys(db, "File"), ["book_id->Book->id", "user_id->User->id"])
        XCTAssertEqual(try foreignKeys(db, "Author_books"), ["source_id->Author->id", "target_id->Book->id"])
        XCTAssertEqual(try indexes(db), ["Author_books_target_index", "File_book_id_index", "File_user_id_index"])
    }

    /// Whatever the model, the store holds exactly the tables and columns the layout names.
    func testCreatedTablesAreWhatTheLayoutSays() throws {
        for version in [1, 2, 3] {
            let layout = try books(version)
            let db = try emptyStore(layout)
            let tables = Dictionary(uniqueKeysWithValues: try db.tables().map { ($0.name, $0) })
            var expected: [String: Set<String>] = [:]
            for entity in layout.model.entities {
                let table = layout.table(of: entity.name)
                XCTAssertNil(table.discriminator, "no hierarchy in the books models")
                expected[table.name, default: []].insert(table.keyColumn)
                XCTAssertEqual(tables[table.name]?.column(named: table.keyColumn)?.isPrimaryKey, true)
                for attribute in layout.model.attributes(of: entity.name) {
                    expected[table.name, default: []].insert(layout.column(ofAttribute: attribute.name, entity: entity.name))
                }
                for r in layout.model.relationships(of: entity.name) {
                    switch layout.storage(ofRelationship: r.name, entity: entity.name) {
                    case .foreignKey(let t, let c), .inverseForeignKey(let t, let c):
                        expected[t, default: []].insert(c)
                    case .joinTable(let t, let own, let other):
                        expected[t, default: []].formUnion([own, other])
                        XCTAssertEqual(tables[t]?.columns.filter(\.isPrimaryKey).map(\.name).sorted(), [own, other].sorted())
                    }
                }
            }
            XCTAssertEqual(Set(tables.keys), Set(expected.keys), "v\(version)")
            for (name, columns) in expected {
                XCTAssertEqual(Set(tables[name]?.columns.map(\.name) ?? []), columns, "v\(version) \(name)")
            }
        }
    }

    func testJoinTableRowIsTheSameFromBothSides() throws {
        let layout = try books(1)
        let db = try emptyStore(layout)
        try db.execute("PRAGMA foreign_keys = ON")
        try db.run("INSERT INTO Book (id, title) VALUES (1, 'Dune')")
        try db.run("INSERT INTO User (id, userId, name) VALUES (2, 20, 'Ann')")
        guard case .joinTable(let table, let own, let other) = layout.storage(ofRelationship: "books", entity: "User") else {
            return XCTFail("User.books should be a join table")
        }
        // User 2 has book 1, written from the User side…
        try db.run("INSERT INTO \(Database.quote(table)) (\(Database.quote(own)), \(Database.quote(other))) VALUES (2, 1)")
        // …is the row the Book side reads: book 1 has user 2.
        guard case .joinTable(let bookTable, let bookOwn, let bookOther) = layout.storage(ofRelationship: "users", entity: "Book") else {
            return XCTFail("Book.users should be a join table")
        }
        XCTAssertEqual(try db.rows("SELECT \(Database.quote(bookOther)) FROM \(Database.quote(bookTable)) WHERE \(Database.quote(bookOwn)) = 1"),
                       [[.integer(2)]])
        // The columns reference the right tables: swapping the keys breaks the foreign keys.
        XCTAssertThrowsError(try db.run("INSERT INTO Book_users (source_id, target_id) VALUES (2, 1)")) { error in
            XCTAssertEqual((error as? StoreError)?.code, SQLiteCode.constraint)
        }
    }

    func testSchemaSQLIsDeterministic() throws {
        let layout = try books(3)
        XCTAssertEqual(layout.schemaSQL(), layout.schemaSQL())
        XCTAssertEqual(layout.schemaSQL(), PlainLayout(model: try PackageFiles.books(3)).schemaSQL())
        let db = try emptyStore(layout)
        XCTAssertThrowsError(try db.execute(layout.schemaSQL()[0]), "a second CREATE TABLE fails: the tables exist")
    }

    // MARK: Entity hierarchies

    private func people() throws -> PlainLayout {
        PlainLayout(model: try decodeModel("""
            {"version": "h1", "entities": [
              {"name": "Person", "abstract": true,
               "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "company", "destination": "Company", "inverse": "staff"}]},
              {"name": "Employee", "parent": "Person",
               "attributes": [{"name": "salary", "type": "decimal"}],
               "relationships": [{"name": "manager", "destination": "Employee", "inverse": "reports"},
                                 {"name": "reports", "destination": "Employee", "inverse": "manager", "toMany": true}]},
              {"name": "Customer", "parent": "Person",
               "attributes": [{"name": "since", "type": "date"}],
               "relationships": [{"name": "favorites", "destination": "Product", "inverse": "fans", "toMany": true}]},
              {"name": "Company",
               "attributes": [{"name": "title", "type": "string"}],
               "relationships": [{"name": "staff", "destination": "Person", "inverse": "company", "toMany": true}]},
              {"name": "Product",
               "relationships": [{"name": "fans", "destination": "Customer", "inverse": "favorites", "toMany": true}]}
            ]}
            """))
    }

    func testHierarchySharesOneTableWithAnEntityColumn() throws {
        let layout = try people()
        let db = try emptyStore(layout)
        XCTAssertEqual(try db.tables().map(\.name), ["Company", "Customer_favorites", "Person", "Product"], "no table per sub-entity")
        XCTAssertEqual(try columns(db, "Person"), ["id", "entity", "name", "company_id", "salary", "manager_id", "since"])
        XCTAssertEqual(try db.scalarInt("SELECT \"notnull\" FROM pragma_table_info('Person') WHERE name = 'entity'"), 1)
        XCTAssertEqual(try columns(db, "Company"), ["id", "title"], "a table without sub-entities has no entity column")
        XCTAssertEqual(try foreignKeys(db, "Person"), ["company_id->Company->id", "manager_id->Person->id"])
        XCTAssertEqual(try foreignKeys(db, "Customer_favorites"), ["source_id->Person->id", "target_id->Product->id"])
    }

    func testTableOfEachSubEntityCarriesItsDiscriminator() throws {
        let layout = try people()
        for entity in ["Person", "Employee", "Customer"] {
            XCTAssertEqual(layout.table(of: entity), EntityTable(name: "Person", keyColumn: "id",
                                                                 discriminator: ("entity", .text(entity)),
                                                                 insertDefaults: [("entity", .text(entity))]), entity)
        }
        XCTAssertNotEqual(layout.table(of: "Employee"), layout.table(of: "Customer"))
        let company = layout.table(of: "Company")
        XCTAssertEqual(company, EntityTable(name: "Company", keyColumn: "id"))
        XCTAssertNil(company.discriminator)
        XCTAssertTrue(company.insertDefaults.isEmpty)
    }

    func testRelationshipsOfSubEntitiesLiveInTheSharedTable() throws {
        let layout = try people()
        for entity in ["Person", "Employee", "Customer"] {
            XCTAssertEqual(layout.storage(ofRelationship: "company", entity: entity), .foreignKey(table: "Person", column: "company_id"), entity)
        }
        XCTAssertEqual(layout.storage(ofRelationship: "staff", entity: "Company"), .inverseForeignKey(table: "Person", column: "company_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "manager", entity: "Employee"), .foreignKey(table: "Person", column: "manager_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "reports", entity: "Employee"), .inverseForeignKey(table: "Person", column: "manager_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "favorites", entity: "Customer"),
                       .joinTable(table: "Customer_favorites", ownColumn: "source_id", otherColumn: "target_id"))
        XCTAssertEqual(layout.storage(ofRelationship: "fans", entity: "Product"),
                       .joinTable(table: "Customer_favorites", ownColumn: "target_id", otherColumn: "source_id"))
    }

    func testConditionSelectsOnlyTheEntitysRows() throws {
        let layout = try people()
        XCTAssertEqual(layout.table(of: "Employee").condition(alias: "t0"), #"t0."entity" = 'Employee'"#)
        XCTAssertEqual(layout.table(of: "Customer").condition(alias: "src"), #"src."entity" = 'Customer'"#)
        XCTAssertNil(layout.table(of: "Company").condition(alias: "t0"), "all rows of an unshared table")

        let db = try emptyStore(layout)
        var id: Int64 = 0
        for (entity, count) in [("Employee", 3), ("Customer", 2)] {
            let table = layout.table(of: entity)
            let names = [table.keyColumn] + table.insertDefaults.map(\.column)
            for _ in 0..<count {
                id += 1
                try db.run("INSERT INTO \(Database.quote(table.name)) (\(names.map(Database.quote).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                           [.integer(id)] + table.insertDefaults.map(\.value))
            }
        }
        func count(_ entity: String) throws -> Int64 {
            let table = layout.table(of: entity)
            let condition = table.condition(alias: "t0").map { " WHERE \($0)" } ?? ""
            return try db.scalarInt("SELECT count(*) FROM \(Database.quote(table.name)) t0" + condition)
        }
        XCTAssertEqual(try count("Employee"), 3)
        XCTAssertEqual(try count("Customer"), 2)
        XCTAssertEqual(try count("Company"), 0)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Person"), 5)
    }

    func testConditionQuotesColumnAndValue() throws {
        let odd = EntityTable(name: "T", keyColumn: "id", discriminator: ("ki\"nd", .text("O'Brien")))
        XCTAssertEqual(odd.condition(alias: "x"), #"x."ki""nd" = 'O''Brien'"#)
        let coreData = EntityTable(name: "ZPERSON", keyColumn: "Z_PK", discriminator: ("Z_ENT", .integer(3)))
        XCTAssertEqual(coreData.condition(alias: "t1"), #"t1."Z_ENT" = 3"#)

        let db = try Database(path: ":memory:", mode: .create)
        try db.execute(#"CREATE TABLE T (id INTEGER PRIMARY KEY, "ki""nd" TEXT); INSERT INTO T VALUES (1, 'O''Brien'), (2, 'Other')"#)
        XCTAssertEqual(try db.rows("SELECT x.id FROM T x WHERE \(try XCTUnwrap(odd.condition(alias: "x")))"), [[.integer(1)]])
    }

    func testLayoutKindAndPlainNaming() throws {
        let model = try PackageFiles.books(2)
        XCTAssertEqual(LayoutKind(rawValue: "plain"), .plain)
        let layout: any StoreLayout = PlainLayout(model: model)
        XCTAssertEqual(layout.kind, .plain)
        XCTAssertEqual(layout.dateEpoch, 0)
        XCTAssertEqual(layout.model, model)
        XCTAssertEqual(layout.column(ofAttribute: "title", entity: "Book"), "title")
        XCTAssertEqual(layout.table(of: "Book"), EntityTable(name: "Book", keyColumn: "id"))
        XCTAssertNoThrow(try layout.finish(try Database(path: ":memory:", mode: .create)))
    }
}
