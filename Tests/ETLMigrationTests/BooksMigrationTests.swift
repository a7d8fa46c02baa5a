import XCTest
import ETLStore
import ETL
import ETLExpression

/// Given a v1 books store, when migrated through pipelines/books.json (v1 → v2 → v3),
/// then the v3 store holds what each step promised — checked with SQL against the v1 file.
final class BooksMigrationTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!
    var destination: String!
    var v3: Database!

    override func setUpWithError() throws {
        (folder, source, destination) = try givenBooksStore(rows: 3000, seed: 42, source: "books-v1.sqlite", destination: "books-v3.sqlite")
        try migrateBooks(source: source, destination: destination, chunkSize: 250, workers: 3)
        v3 = try Database(path: destination, mode: .readOnly)
        try v3.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS v1")
    }

    override func tearDown() {
        v3 = nil
        folder = nil
    }

    func count(_ sql: String) throws -> Int64 { try v3.scalarInt(sql) }

    func testFourEntitiesComeOutWithTheirJoinTable() throws {
        let tables = try v3.tables().map(\.name).filter { !$0.hasPrefix("v1.") }
        XCTAssertEqual(Set(try v3.rows("SELECT name FROM main.sqlite_schema WHERE type = 'table'").map { $0[0] }),
                       Set(["User", "Book", "Author", "File", "Author_books"].map { SQLValue.text($0) }), "tables: \(tables)")
        XCTAssertEqual(try count("SELECT count(*) FROM main.User"), try count("SELECT count(*) FROM v1.User"))
        XCTAssertEqual(try count("SELECT count(*) FROM main.Book"), 3000)
    }

    func testEveryUserAndBookKeepsItsValues() throws {
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.Book b JOIN v1.Book o ON o.title = b.title
            WHERE b.published IS o.published AND b.price IS o.price
            """), 3000)
        XCTAssertEqual(try count("SELECT count(*) FROM main.User u JOIN v1.User o ON o.userId = u.userId AND o.name = u.name"),
                       try count("SELECT count(*) FROM v1.User"))
    }

    func testAuthorsAreDeduplicatedOnePerDistinctName() throws {
        let distinctNames = try count("SELECT count(DISTINCT authorName) FROM v1.Book WHERE authorName IS NOT NULL")
        XCTAssertGreaterThan(distinctNames, 100)
        XCTAssertEqual(try count("SELECT count(*) FROM main.Author"), distinctNames)
        XCTAssertEqual(try count("SELECT count(DISTINCT name) FROM main.Author"), distinctNames)
    }

    func testEachBookLinksToTheAuthorOfItsOldNameFromBothSides() throws {
        let withAuthor = try count("SELECT count(*) FROM v1.Book WHERE authorName IS NOT NULL")
        XCTAssertEqual(try count("SELECT count(*) FROM main.Author_books"), withAuthor)
        // Book → author (through the join table) has the v1 authorName.
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.Book b
            JOIN main.Author_books ab ON ab.target_id = b.id JOIN main.Author a ON a.id = ab.source_id
            JOIN v1.Book o ON o.title = b.title WHERE a.name = o.authorName
            """), withAuthor)
        // Author → books: each author's book count equals the v1 count of books with that name.
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.Author a
            WHERE (SELECT count(*) FROM main.Author_books ab WHERE ab.source_id = a.id)
               != (SELECT count(*) FROM v1.Book o WHERE o.authorName = a.name)
            """), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM main.Book b JOIN v1.Book o ON o.title = b.title WHERE o.authorName IS NULL AND b.id IN (SELECT target_id FROM main.Author_books)"), 0)
    }

    func testOneFilePerBookAndUserPairWithBothSidesResolvable() throws {
        let pairs = try count("SELECT count(*) FROM v1.Book_users j JOIN v1.Book b ON b.id = j.source_id WHERE b.fileURL IS NOT NULL")
        XCTAssertGreaterThan(pairs, 1000)
        XCTAssertEqual(try count("SELECT count(*) FROM main.File"), pairs)
        // Each file's (book title, user id, url) is one of v1's pairs, and none repeats.
        XCTAssertEqual(try count("""
            SELECT count(DISTINCT b.title || '/' || u.userId) FROM main.File f
            JOIN main.Book b ON b.id = f.book_id JOIN main.User u ON u.id = f.user_id
            JOIN v1.Book ob ON ob.title = b.title AND ob.fileURL = f.fileURL
            JOIN v1.User ou ON ou.userId = u.userId
            JOIN v1.Book_users j ON j.source_id = ob.id AND j.target_id = ou.id
            """), pairs)
        // From the other sides: Book.files and User.files are the files pointing at them.
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.Book b JOIN v1.Book o ON o.title = b.title
            WHERE (SELECT count(*) FROM main.File f WHERE f.book_id = b.id)
               != (CASE WHEN o.fileURL IS NULL THEN 0 ELSE (SELECT count(*) FROM v1.Book_users j WHERE j.source_id = o.id) END)
            """), 0)
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.User u JOIN v1.User o ON o.userId = u.userId
            WHERE (SELECT count(*) FROM main.File f WHERE f.user_id = u.id)
               != (SELECT count(*) FROM v1.Book_users j JOIN v1.Book b ON b.id = j.source_id WHERE j.target_id = o.id AND b.fileURL IS NOT NULL)
            """), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM main.File WHERE book_id IS NULL OR user_id IS NULL"), 0)
    }

    func testNoWorkFilesRemainAndTheSourceIsUntouched() throws {
        XCTAssertEqual(try folder.files(), ["books-v1.sqlite", "books-v3.sqlite"])
        let other = folder.path("again-v1.sqlite")
        try BooksSample.write(rows: 3000, seed: 42, to: other)
        XCTAssertEqual(try bytes(source), try bytes(other), "the source must hash the same as a fresh copy")
    }
}
