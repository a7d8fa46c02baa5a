import XCTest
import ETLModel
import ETLStore
@testable import ETLExpression

final class PathExpressionTests: XCTestCase {
    func testPathTypes() throws {
        XCTAssertEqual(try type(of: "$source"), .sourceRow("Book"))
        XCTAssertEqual(try type(of: "$source.title"), .string)
        XCTAssertEqual(try type(of: "$source.price"), .double)
        XCTAssertEqual(try type(of: "$source.pages"), .integer)
        XCTAssertEqual(try type(of: "$source.published"), .date)
        XCTAssertEqual(try type(of: "$source.cover"), .binary)
        XCTAssertEqual(try type(of: "$source.author"), .sourceRow("Author"))
        XCTAssertEqual(try type(of: "$source.author.name"), .string)
        XCTAssertEqual(try type(of: "$source.author.books"), .sourceRows("Book"))
        XCTAssertEqual(try type(of: "$source.users"), .sourceRows("User"))
        XCTAssertEqual(try type(of: "upper($source.author.name)"), .string)
    }

    func testPathsThroughToOneEvaluateFromSlots() throws {
        let slots = SlotTable()
        let expression = try compile("concat($source.title, ' by ', $source.author.name)", slots: slots)
        XCTAssertEqual(slots.paths.map(\.description), ["$source.title", "$source.author.name"])
        XCTAssertEqual(slots.paths[1], SourcePath(root: .source, segments: ["author", "name"]))
        let value = try expression.evaluate(EvaluationContext(slots: [.string("Dune"), .string("Herbert")]))
        XCTAssertEqual(value, .string("Dune by Herbert"))
    }

    func testPathErrors() {
        let unknown = compileError("upper($source.titel)")
        XCTAssertEqual(unknown?.message, "unknown attribute 'titel' of Book (did you mean 'title'?)")
        XCTAssertEqual(unknown?.column, 15)
        XCTAssertEqual(unknown?.description, "column 15: unknown attribute 'titel' of Book (did you mean 'title'?)")

        let middle = compileError("$source.autor.name")
        XCTAssertEqual(middle?.message, "unknown relationship 'autor' of Book (did you mean 'author'?)")
        XCTAssertEqual(middle?.column, 9)
        XCTAssertEqual(compileError("$source.author.nmae")?.message, "unknown attribute 'nmae' of Author (did you mean 'name'?)")
        XCTAssertEqual(compileError("$source.author.nmae")?.column, 16)
        XCTAssertEqual(compileError("$source.userz")?.message, "unknown relationship 'userz' of Book (did you mean 'users'?)")
        XCTAssertEqual(compileError("$source.xyzzy")?.message, "unknown attribute 'xyzzy' of Book")

        let throughToMany = compileError("$source.users.name")
        XCTAssertEqual(throughToMany?.message,
                       "'users' of Book is a to-many relationship; only to-one relationships can be followed with '.'")
        XCTAssertEqual(throughToMany?.column, 15)
        XCTAssertEqual(compileError("$source.title.length")?.message,
                       "'title' of Book is an attribute; only to-one relationships can be followed with '.'")

        XCTAssertEqual(compileError("$item.name")?.message, "$item is only available inside a forEach")
        let badSource = ExpressionFixture.scope(source: "Bok")
        XCTAssertEqual(compileError("$source", scope: badSource)?.message, "unknown entity 'Bok' in the source model")
    }

    func testItemPaths() throws {
        let scope = ExpressionFixture.scope(item: "User")
        XCTAssertEqual(try type(of: "$item", scope: scope), .sourceRow("User"))
        XCTAssertEqual(try type(of: "$item.name", scope: scope), .string)
        let slots = SlotTable()
        let expression = try compile("concat($source.title, '/', $item.name)", scope: scope, slots: slots)
        XCTAssertEqual(slots.paths, [SourcePath(root: .source, segments: ["title"]), SourcePath(root: .item, segments: ["name"])])
        XCTAssertEqual(slots.paths[1].description, "$item.name")
        XCTAssertEqual(try expression.evaluate(EvaluationContext(slots: [.string("Dune"), .string("ann")])), .string("Dune/ann"))
        XCTAssertEqual(compileError("$item.nam", scope: scope)?.message, "unknown attribute 'nam' of User (did you mean 'name'?)")
    }

    func testSlotsAreSharedAndDeduplicated() throws {
        let slots = SlotTable()
        let first = try compile("upper(trim($source.title))", slots: slots)
        let second = try compile("if($source.title == null, $source.author.name, concat($source.title, $source.author.name))",
                                 slots: slots)
        let third = try compile("$source", slots: slots)
        XCTAssertEqual(slots.paths.map(\.description), ["$source.title", "$source.author.name", "$source"])
        XCTAssertEqual(first.slotsRead, [0])
        XCTAssertEqual(second.slotsRead, [0, 1])
        XCTAssertEqual(third.slotsRead, [2])
        XCTAssertEqual(slots.slot(for: SourcePath(root: .source, segments: ["title"])), 0)
        XCTAssertEqual(slots.existingSlot(for: SourcePath(root: .source, segments: ["price"])), nil)

        // A rejected expression registers nothing.
        XCTAssertThrowsError(try compile("$source.price + $source.title", slots: slots))
        XCTAssertEqual(slots.paths.count, 3)

        let context = EvaluationContext(slots: [.string(" x "), .string("Ann"), .row(9)])
        XCTAssertEqual(try first.evaluate(context), .string("X"))
        XCTAssertEqual(try second.evaluate(context), .string(" x Ann"))
        XCTAssertEqual(try third.evaluate(context), .row(9))
    }

    func testExprTypeDescriptionAndAssignability() {
        XCTAssertEqual(ExprType.integer.description, "integer")
        XCTAssertEqual(ExprType.sourceRow("Book").description, "Book (source row)")
        XCTAssertEqual(ExprType.sourceRows("Book").description, "[Book] (source rows)")
        XCTAssertEqual(ExprType.destinationRow("Author").description, "Author (destination row)")
        XCTAssertEqual(ExprType.destinationRows("Author").description, "[Author] (destination rows)")
        XCTAssertEqual(ExprType(.integer16), .integer)
        XCTAssertEqual(ExprType(.decimal), .double)
        XCTAssertEqual(ExprType(.uri), .string)
        XCTAssertEqual(ExprType(.uuid), .binary)
        XCTAssertEqual(ExprType(.transformable), .binary)

        XCTAssertTrue(ExprType.assignable(.null, to: .destinationRow("A")))
        XCTAssertTrue(ExprType.assignable(.integer, to: .double))
        XCTAssertFalse(ExprType.assignable(.double, to: .integer))
        XCTAssertFalse(ExprType.assignable(.string, to: .date))
        XCTAssertTrue(ExprType.assignable(.destinationRow("A"), to: .destinationRow("A")))
        XCTAssertFalse(ExprType.assignable(.destinationRow("A"), to: .destinationRow("B")))
        XCTAssertFalse(ExprType.assignable(.sourceRow("A"), to: .destinationRow("A")))
        XCTAssertFalse(ExprType.assignable(.destinationRow("A"), to: .destinationRows("A")))
    }

    func testValueSQLConversions() {
        XCTAssertEqual(Value(sql: .integer(1), as: .boolean), .boolean(true))
        XCTAssertEqual(Value(sql: .integer(0), as: .boolean), .boolean(false))
        XCTAssertEqual(Value(sql: .integer(3), as: .double), .double(3))
        XCTAssertEqual(Value(sql: .real(2.0), as: .integer), .integer(2))
        XCTAssertEqual(Value(sql: .real(2.7), as: .integer), .null, "not read: unreadable(sql:as:) says why")
        XCTAssertEqual(Value(sql: .integer(12), as: .sourceRow("Book")), .row(12))
        XCTAssertEqual(Value(sql: .null, as: .string), .null)
        XCTAssertEqual(Value(sql: .blob([1]), as: .binary), .binary([1]))
        XCTAssertEqual(Value.boolean(true).sqlValue, .integer(1))
        XCTAssertEqual(Value.boolean(false).sqlValue, .integer(0))
        XCTAssertEqual(Value.row(5).sqlValue, .integer(5))
        XCTAssertEqual(Value.rows([1, 2]).sqlValue, .null)
        XCTAssertEqual(Value.string("a").sqlValue, .text("a"))
    }

    func testClosestName() {
        XCTAssertEqual(closestName(to: "titel", among: ["price", "title"]), "title")
        XCTAssertEqual(closestName(to: "TITLE", among: ["price", "title"]), "title")
        XCTAssertEqual(closestName(to: "zzzzz", among: ["price", "title"]), nil)
        XCTAssertEqual(closestName(to: "x", among: []), nil)
        XCTAssertEqual(closestName(to: "publishedDat", among: ["published", "publishedDate"]), "publishedDate")
        // max(2, 12 / 3) = 4 edits allowed for a 12-character name, not 5.
        XCTAssertEqual(closestName(to: "abcdefghijkl", among: ["abcdefgxxxxl"]), "abcdefgxxxxl")
        XCTAssertEqual(closestName(to: "abcdefghijkl", among: ["abcdefgxxxxx"]), nil)
    }
}

final class DestinationExpressionTests: XCTestCase {
    let scope = ExpressionFixture.scope(lookups: true)

    /// Authors: source 7 → 70; source 8 → nothing; source 9 → 90 and 91. Users: n → n * 10.
    func lookup(_ mapping: String, _ keys: [Int64]) throws -> [Int64] {
        let table: [String: [Int64: [Int64]]] = [
            "Authors": [7: [70], 8: [], 9: [90, 91]],
            "Users": [1: [10], 2: [20], 3: [30]],
            "Books": [5: [50]],
        ]
        return keys.flatMap { table[mapping]?[$0] ?? [] }
    }

    func testDestinationTypes() throws {
        XCTAssertEqual(try type(of: "destination('Authors', $source.author)", scope: scope), .destinationRow("Writer"))
        XCTAssertEqual(try type(of: "destinations('Users', $source.users)", scope: scope), .destinationRows("Person"))
        XCTAssertEqual(try type(of: "destinations('Books', $source)", scope: scope), .destinationRows("Volume"))
        XCTAssertEqual(try type(of: "destination('Books', $source)", scope: scope), .destinationRow("Volume"))
        XCTAssertEqual(try type(of: "count(destinations('Users', $source.users))", scope: scope), .integer)
        let itemScope = ExpressionFixture.scope(item: "User", lookups: true)
        XCTAssertEqual(try type(of: "destination('Users', $item)", scope: itemScope), .destinationRow("Person"))
    }

    func testDestinationEvaluation() throws {
        let expression = "destination('Authors', $source.author)"
        XCTAssertEqual(try evaluate(expression, row: ["$source.author": .row(7)], scope: scope, lookup: lookup), .row(70))
        XCTAssertEqual(try evaluate(expression, row: ["$source.author": .row(8)], scope: scope, lookup: lookup), .null)
        XCTAssertEqual(try evaluate(expression, row: [:], scope: scope, lookup: lookup), .null)
        let error = try evaluationError(expression, row: ["$source.author": .row(9)], scope: scope, lookup: lookup)
        XCTAssertEqual(error?.message, "destination('Authors', …) found 2 rows; use destinations()")
        XCTAssertEqual(error?.column, 1)

        XCTAssertEqual(try evaluate("destinations('Users', $source.users)", row: ["$source.users": .rows([3, 1])],
                                    scope: scope, lookup: lookup), .rows([30, 10]))
        XCTAssertEqual(try evaluate("destinations('Users', $source.users)", row: ["$source.users": .rows([])],
                                    scope: scope, lookup: lookup), .rows([]))
        XCTAssertEqual(try evaluate("destinations('Authors', $source.author)", row: ["$source.author": .row(9)],
                                    scope: scope, lookup: lookup), .rows([90, 91]))
        XCTAssertEqual(try evaluate("count(destinations('Users', $source.users))", row: ["$source.users": .rows([1, 2, 4])],
                                    scope: scope, lookup: lookup), .integer(2))
        XCTAssertEqual(try evaluate("destination('Books', $source)", row: ["$source": .row(5)], scope: scope, lookup: lookup),
                       .row(50))
    }

    /// `union()` of destinations: every row once, in key order; its arguments must be
    /// destination rows of one hierarchy.
    func testUnionOfDestinations() throws {
        let twice = "union(destinations('Users', $source.users), destinations('Users', $source.users))"
        XCTAssertEqual(try type(of: twice, scope: scope), .destinationRows("Person"))
        XCTAssertEqual(try evaluate(twice, row: ["$source.users": .rows([3, 1])], scope: scope, lookup: lookup), .rows([10, 30]))
        XCTAssertEqual(compileError("union(destination('Authors', $source.author), destinations('Users', $source.users))", scope: scope)?.message,
                       "union: argument 1 is Writer (destination row), but union() joins destinations('Mapping', …) of several mappings")
        XCTAssertEqual(compileError("union(destinations('Users', $source.users), destinations('Authors', $source.author))", scope: scope)?.message,
                       "union: argument 2 gives rows of Writer, which shares no entity hierarchy with Person")
    }

    func testDestinationLookupErrorsPropagate() throws {
        struct Broken: Error {}
        XCTAssertThrowsError(try evaluate("destination('Books', $source)", row: ["$source": .row(5)], scope: scope,
                                          lookup: { _, _ in throw Broken() })) { error in
            XCTAssertTrue(error is Broken)
        }
    }

    func testDestinationOnlyInRelationshipExpressions() {
        let error = compileError("destination('Authors', $source.author)")
        XCTAssertEqual(error?.message, "destination() is only available in relationship expressions")
        XCTAssertEqual(error?.column, 1)
        XCTAssertEqual(compileError("1 + count(destinations('Users', $source.users))")?.message,
                       "destinations() is only available in relationship expressions")
    }

    func testDestinationTypeErrors() {
        let mismatch = compileError("destination('Authors', $source)", scope: scope)
        XCTAssertEqual(mismatch?.message,
                       "destination('Authors', …) needs a row of Author (the source entity of mapping 'Authors'), but argument 2 is Book (source row)")
        XCTAssertEqual(mismatch?.column, 24)
        XCTAssertTrue(compileError("destinations('Authors', $source.users)", scope: scope)?.message
            .contains("needs a row or rows of Author (the source entity of mapping 'Authors'), but argument 2 is [User] (source rows)") == true)
        XCTAssertTrue(compileError("destination('Users', $source.users)", scope: scope)?.message
            .contains("but argument 2 is [User] (source rows)") == true)
        XCTAssertEqual(compileError("destination('Autors', $source.author)", scope: scope)?.message,
                       "destination: unknown mapping 'Autors' (did you mean 'Authors'?)")
        XCTAssertEqual(compileError("destination($source.title, $source)", scope: scope)?.message,
                       "destination: the first argument must be a mapping name in quotes, like destination('Authors', $source)")
        XCTAssertEqual(compileError("destination('Authors')", scope: scope)?.message, "destination takes 2 arguments, found 1")
        XCTAssertEqual(compileError("destination('Authors', $source.author) == 1", scope: scope)?.message,
                       "cannot compare Writer (destination row) with integer using '=='")
    }
}
