import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// A forEach mapping pushed down: one row per (source row, item) pair, made inside SQLite,
/// must be the store row by row writes — same rows, keys, links and counters.
extension PushdownTests {
    /// Given the pets store (pets listed by their owner's key, friends in a join table with a
    /// dangling entry), when each person's pets and friends fan out into rows that read
    /// `$item` values and filter on them, then both ways write the same store.
    func testAForEachOverEitherKindOfToManyGivesTheSameStoreBothWays() throws {
        let (pipeline, source) = try pairsPipeline(drop: ["Person.age", "Person.height", "Person.born", "Person.active", "Person.photo", "Pet.kind"], mappings: """
                { "name": "People", "source": "Person", "destination": "Person", "attributes": { "name": "$source.name" } },
                { "name": "Pets", "source": "Pet", "destination": "Pet", "attributes": { "name": "$source.name" } },
                { "name": "Ownerships", "source": "Person", "destination": "Ownership",
                  "forEach": "$source.pets", "filter": "$item.name != 'Bird' && $source.name != null",
                  "attributes": { "label": "$item.name", "weight": "$item.weight * 2" },
                  "relationships": { "owner": "destination('People', $source)", "pet": "destination('Pets', $item)" } },
                { "name": "Friendships", "source": "Person", "destination": "Friendship",
                  "forEach": "$source.friends", "attributes": { "name": "$item.name" },
                  "relationships": { "person": "destination('People', $source)", "friend": "destination('People', $item)" } }
            """)
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        // Both pairs' to-ones are written with their rows: People and Pets are made before them.
        let execution = try StepExecution.of(try Migration(pipeline: pipeline).plan().steps[0], policies: PolicyRegistry())
        XCTAssertTrue(execution.mappings[2].why.hasSuffix("; owner and pet written with the rows, found by key"), execution.mappings[2].why)
        XCTAssertTrue(execution.mappings[3].why.hasSuffix("; friend and person written with the rows, found by key"), execution.mappings[3].why)
        XCTAssertEqual(pushed.notes, [], "it ran inside SQLite")
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        for counter in [\MappingCounters.read, \.filtered, \.associated, \.written, \.related] {
            XCTAssertEqual(pushed.mappings.map { $0[keyPath: counter] }, rows.mappings.map { $0[keyPath: counter] }, "\(counter)")
        }
        // Ann's Rex and Tom, Bob's Fish; Zoe's Bird filtered out. Five friend entries, one dangling.
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT label, owner_id, pet_id FROM Ownership ORDER BY id"),
                       [[.text("Rex"), .integer(1), .integer(1)], [.text("Tom"), .integer(1), .integer(2)], [.text("Fish"), .integer(2), .integer(3)]])
        XCTAssertEqual(pushed.mappings.first { $0.mapping == "Ownerships" }?.filtered, 1)
        XCTAssertEqual(try db.rows("SELECT person_id, friend_id, name FROM Friendship ORDER BY id"),
                       [[.integer(1), .integer(2), .text("Bob")], [.integer(1), .integer(3), .text("12")],
                        [.integer(2), .integer(1), .text("Ann")], [.integer(2), .null, .null], [.integer(10), .integer(1), .text("Ann")]])
    }

    /// A forEach with a uniqueBy (one row per distinct key over all pairs) has no pushed-down
    /// form: its step runs row by row, and the summary says why.
    func testAForEachWithAUniqueByKeepsTheStepRowByRow() throws {
        let (_, source) = try writePetsPipeline(filterKinds: true)
        let pipeline = try folder.pipeline("kinds.json", """
            { "format": 1,
              "source": { "store": "\(source)", "model": "\(folder.path("pets-v1.json"))" },
              "destination": { "store": "\(folder.path("unused.sqlite"))", "model": "\(folder.path("pets-v2.json"))" },
              "steps": [ { "name": "kinds", "drop": ["Person.name", "Person.age", "Person.height", "Person.born", "Person.active", "Person.photo",
                                                     "Person.friends", "Pet.name", "Pet.weight"], "mappings": [
                { "name": "Kinds", "source": "Person", "destination": "Kind", "forEach": "$source.pets",
                  "filter": "$item.kind != null", "uniqueBy": "$item.kind", "attributes": { "name": "$item.kind" } } ] } ] }
            """)
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        _ = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        XCTAssertEqual(pushed.notes, ["step kinds ran row by row, not inside SQLite: mapping Kinds has a forEach and a uniqueBy"])
        // Ann's dog and cat, Zoe's bird (its kind a blob of the text "A"); Bob's fish has no kind.
        for store in ["pushed.sqlite", "rows.sqlite"] {
            let db = try Database(path: folder.path(store), mode: .readOnly)
            XCTAssertEqual(try db.rows("SELECT id, name FROM Kind ORDER BY id"),
                           [[.integer(1), .text("dog")], [.integer(2), .text("cat")], [.integer(3), .text("A")]], store)
        }
    }

    /// The Core Data books: Files' pairs come from Core Data's join table and get keys above
    /// the kept ones, Z_MAX included, as row by row.
    func testTheCoreDataBooksChainGivesTheSameStoreBothWays() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 900, seed: 6, to: source, layout: .coredata)
        let pipeline = repositoryPath("pipelines/books-coredata.json")
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        XCTAssertEqual(pushed.notes, ["steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"],
                       "both steps ran inside SQLite, as one")
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        XCTAssertEqual(pushed.mappings.map(\.written), rows.mappings.map(\.written))
        XCTAssertEqual(pushed.mappings.map(\.filtered), rows.mappings.map(\.filtered))
    }

    /// The pets store and a one-step pipeline of `mappings` into pets-pairs.json.
    private func pairsPipeline(drop: [String], mappings: String) throws -> (pipeline: String, source: String) {
        let (_, source) = try writePetsPipeline(filterKinds: true)
        try writePairsModel()
        let pipeline = try folder.pipeline("pairs.json", """
            { "format": 1,
              "source": { "store": "\(source)", "model": "\(folder.path("pets-v1.json"))" },
              "destination": { "store": "\(folder.path("unused.sqlite"))", "model": "\(folder.path("pets-pairs.json"))" },
              "steps": [ { "name": "pairs", "drop": [\(drop.map { "\"\($0)\"" }.joined(separator: ", "))], "mappings": [ \(mappings) ] } ] }
            """)
        return (pipeline, source)
    }

    /// pets-pairs.json: a Person's pets and friends as rows of their own (Ownership, Friendship).
    private func writePairsModel() throws {
        let model = """
            { "version": "pets-pairs", "entities": [
              { "name": "Person", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [
                  { "name": "ownerships", "destination": "Ownership", "inverse": "owner", "toMany": true },
                  { "name": "friendships", "destination": "Friendship", "inverse": "person", "toMany": true },
                  { "name": "friendedBy", "destination": "Friendship", "inverse": "friend", "toMany": true } ] },
              { "name": "Pet", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "ownerships", "destination": "Ownership", "inverse": "pet", "toMany": true } ] },
              { "name": "Ownership", "attributes": [ { "name": "label", "type": "string" }, { "name": "weight", "type": "double" } ],
                "relationships": [
                  { "name": "owner", "destination": "Person", "inverse": "ownerships" },
                  { "name": "pet", "destination": "Pet", "inverse": "ownerships" } ] },
              { "name": "Friendship", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [
                  { "name": "person", "destination": "Person", "inverse": "friendships" },
                  { "name": "friend", "destination": "Person", "inverse": "friendedBy" } ] } ] }
            """
        try Data(model.utf8).write(to: URL(fileURLWithPath: folder.path("pets-pairs.json")))
    }

    /// Links the pairs' create statement cannot write: `owner` shares its column with
    /// People's `ownerships` (whose links point at the pairs, found only through the
    /// associations), and `pet`'s target is made after the pairs. They are linked by
    /// relate statements, as before, and the store is the one row by row writes.
    func testAForEachsLinksThatItsStatementCannotWriteAreLinkedThroughItsAssociations() throws {
        let (pipeline, source) = try pairsPipeline(drop: ["Person.age", "Person.height", "Person.born", "Person.active", "Person.photo", "Person.friends", "Pet.kind", "Pet.weight"], mappings: """
                { "name": "People", "source": "Person", "destination": "Person", "attributes": { "name": "$source.name" },
                  "relationships": { "ownerships": "destinations('Ownerships', $source)" } },
                { "name": "Ownerships", "source": "Person", "destination": "Ownership",
                  "forEach": "$source.pets", "attributes": { "label": "$item.name" },
                  "relationships": { "owner": "destination('People', $source)", "pet": "destination('Pets', $item)" } },
                { "name": "Pets", "source": "Pet", "destination": "Pet", "attributes": { "name": "$source.name" } }
            """)
        let plan = try Migration(pipeline: pipeline).plan()
        let execution = try StepExecution.of(plan.steps[0], policies: PolicyRegistry())
        XCTAssertEqual(execution.mappings[1].why, "INSERT … SELECT of one row per (source row, item) pair in ranges of source keys; rows get the next free keys")
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        XCTAssertEqual(pushed.notes, [], "it ran inside SQLite")
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        // (Not `related`: both sides of owner ↔ ownerships are declared, and pushed down the
        // second side sets no link the first has set; docs/pipeline.md says so.)
        for counter in [\MappingCounters.read, \.filtered, \.associated, \.written] {
            XCTAssertEqual(pushed.mappings.map { $0[keyPath: counter] }, rows.mappings.map { $0[keyPath: counter] }, "\(counter)")
        }
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        // Ann's Rex and Tom, Bob's Fish, Zoe's Bird: each linked to its owner and pet.
        XCTAssertEqual(try db.rows("SELECT label, owner_id, pet_id FROM Ownership ORDER BY id"),
                       [[.text("Rex"), .integer(1), .integer(1)], [.text("Tom"), .integer(1), .integer(2)],
                        [.text("Fish"), .integer(2), .integer(3)], [.text("Bird"), .integer(9), .integer(6)]])
    }

    /// Books' keys have no gap, so Files' pairs are counted in `Book_users` alone
    /// (`pairsOfEveryKey`), between the lowest and the highest book: pairs of books below
    /// and above them, which the forEach never reads, are not counted either.
    func testPairsOfKeysOutsideTheSourceRowsAreNotCounted() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 1500, seed: 7, to: source)
        let db = try Database(path: source, mode: .readWrite)
        let books = try db.scalarInt("SELECT max(id) FROM Book")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book"), books, "the sample's book keys have no gap")
        try db.execute("INSERT INTO Book_users (source_id, target_id) VALUES (0, 1), (-3, 2), (\(books + 1), 1), (\(books + 700), 3)")
        db.close()
        let pipeline = repositoryPath("pipelines/books.json")
        let pushed = try run(pipeline, source: source, into: "pushed.sqlite", pushdown: true)
        let rows = try run(pipeline, source: source, into: "rows.sqlite", pushdown: false)
        XCTAssertEqual(pushed.notes, ["steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"])
        try assertSameStore(folder.path("pushed.sqlite"), folder.path("rows.sqlite"))
        let files = { (summary: RunSummary) in summary.mappings.first { $0.mapping == "Files" } }
        XCTAssertNotNil(files(pushed))
        for counter in [\MappingCounters.read, \.filtered, \.associated, \.written, \.related] {
            XCTAssertEqual(files(pushed)?[keyPath: counter], files(rows)?[keyPath: counter], "\(counter)")
        }
    }
}
