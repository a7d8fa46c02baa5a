import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLTestSupport
import PostSectionsPolicy

/// Policies whose fields are resolved when the pipeline is planned (`Policy(prepare:)`):
/// the same store as the dictionary API, across a stop and resume too, and a wrong name or
/// type refused before anything runs, naming the policy, the mapping and the field.
final class PreparedPolicyTests: XCTestCase {
    var folder: TemporaryFolder!
    static let models = repositoryRoot.appendingPathComponent("Examples/PostSections/models").path

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func pipeline(policy: String, destination: String = "posts-v3.sqlite", chunk: Int = 40) throws -> String {
        try folder.pipeline("posts-\(policy)-\(UUID().uuidString.prefix(4)).json", """
            { "format": 1,
              "source": { "store": "posts-v2.sqlite", "model": "\(Self.models)/posts-v2.json" },
              "destination": { "store": "\(destination)", "model": "\(Self.models)/posts-v3.json" },
              "options": { "workers": 2, "chunkSize": \(chunk) },
              "steps": [ { "mappings": [
                { "name": "Posts", "source": "Post", "destination": "Post", "policy": "\(policy)",
                  "attributes": { "content": "$source.content", "created": "$source.created" } } ] } ] }
            """)
    }

    /// The declared Post's content in capitals and a minute later, and a Section per post,
    /// every third post none: by name.
    static let byName = Policy(creates: ["Section"], create: { post, output in
        guard let content = post.string("content"), post.key % 3 != 0 else { return }
        output.rows[0].values["content"] = .string(content.uppercased())
        if case .date(let seconds) = post["created"] { output.rows[0].values["created"] = .date(seconds + 60) }
        output.insert("Section", ["title": .string(PostSections.title(of: content)), "body": .string(content)])
    }, relate: PostSections.addSection.relate)

    /// The same by fields.
    static let byField = Policy(creates: ["Section"], prepare: { plan in
        let content = try plan.source("content", as: String.self), created = try plan.source("created", as: Date.self)
        let newContent = try plan.attribute("content", as: String.self), newCreated = try plan.attribute("created", as: Date.self)
        let title = try plan.attribute("title", of: "Section", as: String.self), body = try plan.attribute("body", of: "Section", as: String.self)
        return { post, output in
            guard let text = post[content], post.key % 3 != 0 else { return }
            output[newContent] = text.uppercased()
            output[newCreated] = post[created]?.addingTimeInterval(60)
            var section = PolicyOutput.Row()
            section[title] = PostSections.title(of: text)
            section[body] = text
            output.rows.append(section)
        }
    }, relate: PostSections.addSection.relate)

    func run(_ pipeline: String, _ policies: [String: Policy], stopAt fraction: Double? = nil) throws {
        var migration = Migration(pipeline: pipeline, policies: policies)
        migration.replace = .force
        if let fraction {
            let cancellation = Cancellation()
            migration.cancellation = cancellation
            XCTAssertThrowsError(try migration.run { e in
                if e.stage == .create, e.total > 0, Double(e.done) >= fraction * Double(e.total) { cancellation.cancel() }
            })
            migration.cancellation = nil
        }
        _ = try migration.run()
    }

    func testFieldsWriteTheSameStoreAsNamesAlsoAfterAResume() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 900)
        try run(try pipeline(policy: "byName", destination: "by-name.sqlite"), ["byName": Self.byName])
        try run(try pipeline(policy: "byField"), ["byField": Self.byField], stopAt: 0.5)
        try assertSameStore(folder.path("posts-v3.sqlite"), folder.path("by-name.sqlite"))
        let db = try Database(path: folder.path("posts-v3.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Section"), 600)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Post WHERE content = upper(content)"), 600)
        try db.execute("ATTACH DATABASE \(SQLValue.text(folder.path("posts-v2.sqlite")).sqlLiteral) AS v2")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM main.Post p JOIN v2.Post o ON o.id = p.id WHERE p.created = o.created + 60"), 600)
    }

    func planError(_ prepare: @escaping Policy.Prepare) throws -> String {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 10)
        let migration = Migration(pipeline: try pipeline(policy: "typo"), policies: ["typo": Policy(creates: ["Section"], prepare: prepare)])
        do {
            _ = try migration.plan()
        } catch let error as PolicyPlanError {
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("posts-v3.sqlite")), "nothing is written")
            return error.description
        }
        XCTFail("planned")
        return ""
    }

    func testAWrongFieldNameFailsWhenPlannedNamingPolicyMappingAndField() throws {
        XCTAssertEqual(try planError { plan in _ = try plan.source("contnet", as: String.self); return { _, _ in } },
                       "policy 'typo' of mapping 'Posts': the source entity Post has no attribute or to-one 'contnet' (did you mean 'content'?)")
        XCTAssertEqual(try planError { plan in _ = try plan.attribute("titel", of: "Section", as: String.self); return { _, _ in } },
                       "policy 'typo' of mapping 'Posts': the destination entity Section has no attribute 'titel' (did you mean 'title'?)")
        XCTAssertEqual(try planError { plan in _ = try plan.attribute("title", of: "Chapter", as: String.self); return { _, _ in } },
                       "policy 'typo' of mapping 'Posts': 'Chapter' is neither the mapping's entity nor one the policy declares in `creates`")
    }

    func testAFieldOfAnotherTypeFailsWhenPlanned() throws {
        XCTAssertEqual(try planError { plan in _ = try plan.source("content", as: Double.self); return { _, _ in } },
                       "policy 'typo' of mapping 'Posts': source field 'content' of Post is string, not Double")
        XCTAssertEqual(try planError { plan in _ = try plan.attribute("created", as: String.self); return { _, _ in } },
                       "policy 'typo' of mapping 'Posts': attribute 'created' of Post is date, not String")
    }

    /// A Section's field set on the Post row would land on the wrong attribute: the source
    /// row is rejected, like any other failure of the policy.
    func testAFieldOfAnotherEntityRejectsTheRow() throws {
        try PostSections.writeSample(to: folder.path("posts-v2.sqlite"), count: 10)
        let misplaced = Policy(creates: ["Section"], prepare: { plan in
            let title = try plan.attribute("title", of: "Section", as: String.self)
            return { post, output in if post.key == 4 { output[title] = "lost" } }
        })
        XCTAssertThrowsError(try run(try pipeline(policy: "misplaced"), ["misplaced": misplaced])) { error in
            XCTAssertTrue("\(error)".contains("set Section.title on a row of Post"), "\(error)")
        }
    }
}
