import XCTest
import ETLStore
@testable import ETLModel

/// A plain layout works out each answer once (`PlainLayoutAnswers`): asked again, by it or
/// a copy of it, it gives the kept answer; a question it was not asked yet (another key,
/// another `declaresRequired`) is worked out, never given another's answer.
final class PlainLayoutAnswersTests: XCTestCase {
    func testAnAnswerIsWorkedOutOncePerQuestion() {
        let answers = PlainLayoutAnswers()
        var worked = 0
        let table = { (name: String) in EntityTable(name: name, keyColumn: "id") }
        for _ in 0..<3 {
            XCTAssertEqual(answers.table(of: "Book") { worked += 1; return table("Book") }, table("Book"))
        }
        XCTAssertEqual(worked, 1)
        XCTAssertEqual(answers.table(of: "User") { worked += 1; return table("User") }, table("User"))
        XCTAssertEqual(answers.storage(ofRelationship: "users", entity: "Book") { worked += 1; return .foreignKey(table: "Book", column: "a") },
                       .foreignKey(table: "Book", column: "a"))
        XCTAssertEqual(answers.storage(ofRelationship: "users", entity: "Book") { worked += 1; return .foreignKey(table: "Book", column: "b") },
                       .foreignKey(table: "Book", column: "a"))
        // The same relationship name of another entity is another question.
        XCTAssertEqual(answers.storage(ofRelationship: "users", entity: "Author") { worked += 1; return .foreignKey(table: "Author", column: "c") },
                       .foreignKey(table: "Author", column: "c"))
        XCTAssertEqual(answers.schemaSQL(declaresRequired: false) { worked += 1; return ["a"] }, ["a"])
        XCTAssertEqual(answers.schemaSQL(declaresRequired: false) { worked += 1; return ["b"] }, ["a"])
        XCTAssertEqual(answers.schemaSQL(declaresRequired: true) { worked += 1; return ["c"] }, ["c"])
        XCTAssertEqual(worked, 6)
    }

    func testALayoutAndItsCopiesAnswerAsAFreshLayout() throws {
        for version in [1, 2, 3] {
            let model = try PackageFiles.books(version)
            var layout = PlainLayout(model: model)
            for _ in 0..<2 {
                XCTAssertEqual(layout.schemaSQL(), PlainLayout(model: model).schemaSQL(), "v\(version)")
                for entity in model.entities {
                    XCTAssertEqual(layout.table(of: entity.name), PlainLayout(model: model).table(of: entity.name))
                    for r in entity.relationships {
                        XCTAssertEqual(layout.storage(ofRelationship: r.name, entity: entity.name),
                                       PlainLayout(model: model).storage(ofRelationship: r.name, entity: entity.name))
                    }
                }
            }
            // A copy that declares required attributes has that schema, not the one kept before.
            layout.declaresRequired = true
            XCTAssertEqual(layout.schemaSQL(), PlainLayout(model: model, declaresRequired: true).schemaSQL(), "v\(version)")
            XCTAssertNotEqual(layout.schemaSQL(), PlainLayout(model: model).schemaSQL(), "v\(version)")
        }
    }
}
