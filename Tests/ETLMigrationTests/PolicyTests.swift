import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import PostSectionsPolicy

/// Swift policies: the README's example, fan-out, filtering in code, dedupe through a
/// lookup table, rejects — each also across a stop and resume, and with 1 or 4 workers.
final class PolicyTests: XCTestCase {
    var folder: TemporaryFolder!
    static let examples = repositoryRoot.appendingPathComponent("Examples/PostSections")

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func postsPipeline(policy: String = "addSection", maxRejects: Int = 0, workers: Int = 2, chunk: Int = 100) throws -> String {
        try folder.pipeline("posts-\(policy)-\(UUID().uuidString.prefix(4)).json", """
            { "format": 1,
              "source": { "store": "posts-v2.sqlite", "model": "\(Self.examples.path)/models/posts-v2.json" },
              "destination": { "store": "posts-v3.sqlite", "model": "\(Self.examples.path)/models/posts-v3.json" },
              "options": { "maxRejects": \(maxRejects), "workers": \(workers), "chunkSize": \(chunk) },
              "steps": [ { "mappings": [
                { "name": "Posts", "source": "Post", "destination": "Post", "policy": "\(policy)",
                  "attributes": { "content": "$source.content", "created": "$source.created" } } ] } ] }
            """)
    }

    func run(_ pipeline: String, _ policies: [String: Policy], force: Bool = true,
             stopAt fraction: Double? = nil) throws -> RunSummary {
        var migration = Migration(pipeline: pipeline, policies: policies)
        migration.replace = force ? .force : .refuse
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        if let fraction {
            XCTAssertThrowsError(try migration.run { e in
                if e.stage == .create, e.total > 0, Double(e.done) >= fraction * Double(e.total) { cancellation.cancel() }
            }) { error in
                guard case MigrationError.interrupted = error else { return XCTFail("\(error)") }
            }
            migration.cancellation = nil
        }
        return try migration.run()
    }

    func testTheExamplePolicyGivesEveryPostItsSectionWithTheTextIntact() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 1000)
        let summary = try run(try postsPipeline(), PostSections.policies)
        XCTAssertEqual(summary.mappings.map(\.mapping), ["Posts", "Posts/Section"])
        XCTAssertEqual(summary.mappings.map(\.written), [1000, 1000])
        let db = try Database(path: folder.path("posts-v3.sqlite"), mode: .readOnly)
        try db.execute("ATTACH DATABASE \(SQLValue.text(folder.path("posts-v2.sqlite")).sqlLiteral) AS v2")
        // Every Section points at its Post, every Post has exactly one Section.
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Section s JOIN main.Post p ON p.id = s.post_id WHERE s.body = p.content"), 1000)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Post p WHERE (SELECT count(*) FROM main.Section s WHERE s.post_id = p.id) != 1"), 0)
        // The text byte for byte, Unicode included, and the title rule.
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Post p JOIN v2.Post o ON o.id = p.id WHERE CAST(p.content AS BLOB) = CAST(o.content AS BLOB)"), 1000)
        let unicode = try db.rows("SELECT s.title, s.body FROM main.Section s WHERE s.body LIKE '%日本語%' LIMIT 1")
        guard case .text(let title) = unicode.first?[0], case .text(let body) = unicode.first?[1] else { return XCTFail("no Unicode post") }
        XCTAssertTrue(body.contains("Ελληνικά, 日本語のテキスト, emoji 🚀"))
        XCTAssertEqual(title, PostSections.title(of: body))
        XCTAssertTrue(title.hasSuffix("…"))
    }

    /// Two Sections per Post, none for posts the policy filters out.
    static let twoOrNone = Policy(creates: ["Section"], create: { post, output in
        if post.key % 4 == 0 { return output.removeAll() }
        let content = post.string("content") ?? ""
        output.insert("Section", ["title": .string("first"), "body": .string(content)])
        output.insert("Section", ["title": .string("second"), "body": .string(content)])
    }, relate: { row in
        row.entity == "Post" ? ["sections": try row.destinations("Posts/Section", [row.source.key])] : [:]
    })

    func testTwoRowsPerSourceRowAndNoneForSomeEvenAfterAResume() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 800)
        let pipeline = try postsPipeline(policy: "twoOrNone", chunk: 25)
        let straight = try run(pipeline, ["twoOrNone": Self.twoOrNone])
        XCTAssertEqual(straight.mappings.map(\.written), [600, 1200])
        let reference = folder.path("reference.sqlite")
        try FileManager.default.moveItem(atPath: folder.path("posts-v3.sqlite"), toPath: reference)
        let resumed = try run(pipeline, ["twoOrNone": Self.twoOrNone], stopAt: 0.5)
        XCTAssertEqual(resumed.mappings.map(\.written), [600, 1200])
        try assertSameStore(folder.path("posts-v3.sqlite"), reference)
        let db = try Database(path: reference, mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Post p WHERE (SELECT count(*) FROM Section s WHERE s.post_id = p.id) != 2"), 0)
    }

    /// Authors deduplicated by a policy's lookup key (case-insensitive names), across a resume.
    static let authors = Policy(create: { book, output in
        guard let name = book.string("authorName") else { return output.removeAll() }
        output.rows = [PolicyOutput.Row(values: ["name": .string(name)], uniqueKey: .string(name.lowercased()))]
    })

    func testALookupTableDeduplicatesAcrossAResume() throws {
        try BooksSample.write(rows: 2000, seed: 6, to: folder.path("v1.sqlite"))
        let pipeline = try folder.booksStepPipeline("authors.json", options: #""chunkSize": 50, "workers": 3"#, drop: ["User"], mappings: """
            { "name": "Authors", "source": "Book", "destination": "Author", "policy": "authors" }
            """)
        _ = try run(pipeline, ["authors": Self.authors], stopAt: 0.4)
        let db = try Database(path: folder.path("v2.sqlite"), mode: .readOnly)
        try db.execute("ATTACH DATABASE \(SQLValue.text(folder.path("v1.sqlite")).sqlLiteral) AS v1")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Author"), try db.scalarInt("SELECT count(DISTINCT lower(authorName)) FROM v1.Book"))
        XCTAssertEqual(try db.scalarInt("SELECT count(*) - count(DISTINCT lower(name)) FROM main.Author"), 0)
    }

    func testTheSameStoreWithOneOrFourWorkers() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 1500)
        _ = try run(try postsPipeline(policy: "twoOrNone", workers: 1, chunk: 30), ["twoOrNone": Self.twoOrNone])
        try FileManager.default.moveItem(atPath: folder.path("posts-v3.sqlite"), toPath: folder.path("one.sqlite"))
        _ = try run(try postsPipeline(policy: "twoOrNone", workers: 4, chunk: 30), ["twoOrNone": Self.twoOrNone])
        try assertSameStore(folder.path("posts-v3.sqlite"), folder.path("one.sqlite"))
    }

    struct Unreadable: Error, CustomStringConvertible { var id: Int64; var description: String { "post \(id) is unreadable" } }

    /// Throws for posts 1234, 5678 and 9012.
    static let picky = Policy(create: { post, _ in
        if [1234, 5678, 9012].contains(post.key) { throw Unreadable(id: post.key) }
    })

    func testRejectsUpToTheLimitAreKeptAndAboveItTheRunFails() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 10_000)
        let summary = try run(try postsPipeline(policy: "picky", maxRejects: 10, chunk: 500), ["picky": Self.picky])
        XCTAssertEqual(summary.mappings[0].rejected, 3)
        XCTAssertEqual(summary.mappings[0].written, 9_997)
        let file = try XCTUnwrap(summary.rejectFile)
        let rejects = try RejectFile.read(file)
        XCTAssertEqual(rejects.map(\.key), [1234, 5678, 9012])
        XCTAssertEqual(rejects.map(\.error), ["post 1234 is unreadable", "post 5678 is unreadable", "post 9012 is unreadable"])
        XCTAssertTrue(rejects[0].values["$source.content"]?.hasPrefix("Post 1234:") == true, "\(rejects[0].values)")
        XCTAssertEqual(try Database(path: folder.path("posts-v3.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM Post WHERE substr(content, 1, 10) IN ('Post 1234:', 'Post 5678:', 'Post 9012:')"), 0)

        // With no rejects allowed: the run fails on the first, and the old destination stays.
        try Data("previous".utf8).write(to: URL(fileURLWithPath: folder.path("posts-v3.sqlite")))
        XCTAssertThrowsError(try run(try postsPipeline(policy: "picky", maxRejects: 0, chunk: 500), ["picky": Self.picky])) { error in
            XCTAssertTrue("\(error)".contains("more than 0 rows were rejected"), "\(error)")
            XCTAssertTrue("\(error)".contains("source Post row 1234: policy picky: post 1234 is unreadable"), "\(error)")
        }
        XCTAssertEqual(try bytes(folder.path("posts-v3.sqlite")), Data("previous".utf8))
        // The rows that stopped the run are kept for the user to read.
        XCTAssertEqual(try RejectFile.read(folder.path("posts-v3.sqlite.rejects.jsonl.zst")).map(\.key), [1234])
    }

    func testAnUnregisteredPolicyListsTheRegisteredOnes() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 10)
        XCTAssertThrowsError(try run(try postsPipeline(policy: "addSections"), ["addSection": PostSections.addSection, "picky": Self.picky])) { error in
            XCTAssertTrue(error is DocumentError, "\(error)")
            XCTAssertTrue("\(error)".contains("unknown policy 'addSections': registered policies: addSection, picky"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("posts-v3.sqlite")))
    }

    func testEndOfMappingRowsAndValidationHooks() throws {
        try BooksSample.write(rows: 400, seed: 2, to: folder.path("v1.sqlite"))
        let pipeline = try folder.booksStepPipeline("users.json", options: #""chunkSize": 7"#, drop: ["Book"], mappings: """
            { "name": "Users", "source": "User", "destination": "User", "policy": "withSystemUser",
              "attributes": { "userId": "$source.userId", "name": "$source.name" } }
            """)
        // One more User once all are in: the app's "system" account, numbered after the others.
        let withSystemUser = Policy(endOfMapping: { mapping in
            [PolicyOutput.Row(values: ["userId": .integer(Int64(mapping.written) + 1), "name": .string("system")])]
        }, validate: { check in
            let system = try check.query("SELECT count(*) FROM User WHERE name = 'system'")
            return system.first?.first == .integer(1) ? [] : ["there must be exactly one system user"]
        })
        let summary = try run(pipeline, ["withSystemUser": withSystemUser], stopAt: 0.5)
        XCTAssertEqual(summary.mappings[0].written, 21)
        let db = try Database(path: folder.path("v2.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT userId, name FROM User ORDER BY id DESC LIMIT 1"), [[.integer(21), .text("system")]])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM User WHERE name = 'system'"), 1, "not twice after the resume")

        // A validation hook that finds a problem fails the run; nothing is replaced.
        let strict = Policy(validate: { _ in ["every user needs a verified e-mail"] })
        XCTAssertThrowsError(try run(pipeline, ["withSystemUser": strict])) { error in
            XCTAssertTrue("\(error)".contains("validation failed"), "\(error)")
            XCTAssertTrue("\(error)".contains("policy withSystemUser of mapping Users: every user needs a verified e-mail"), "\(error)")
        }
        XCTAssertEqual(try Database(path: folder.path("v2.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM User"), 21)
    }
}
