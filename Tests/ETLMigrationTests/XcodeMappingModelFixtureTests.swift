import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// The mapping models of `../shared/fixtures/coredata-mappingmodels`, as their authors wrote
/// them in Xcode, each run on a store the test builds (there are none in the fixtures) and
/// checked row by row against what Core Data does with it.
final class XcodeMappingModelFixtureTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// A copy of one project of the fixture set.
    func project(_ name: String) throws -> URL {
        try FixtureSet.copy("coredata-mappingmodels/\(name)", into: folder.url.appendingPathComponent("fixtures"))
    }

    /// A bundle pipeline from `source` (at `from`) to `to`, into `out`, with `steps` (JSON).
    func pipeline(bundle: URL, source: String, from: String, to: String, out: String, steps: String) throws -> String {
        try folder.pipeline("pipeline-\(UUID().uuidString.prefix(6)).json", """
            { "format": 1, "models": "\(bundle.path)",
              "source": { "store": "\(folder.path(source))", "layout": "coredata", "version": "\(from)" },
              "destination": { "store": "\(folder.path(out))", "layout": "coredata", "version": "\(to)" },
              "steps": [ \(steps) ] }
            """)
    }

    // MARK: billmoss-hybrid

    func billmoss() throws -> (folder: URL, bundle: URL) {
        let set = try project("billmoss-hybrid")
        return (set.appendingPathComponent("CoreDataMigration"), set.appendingPathComponent("CoreDataMigration/Model.xcdatamodeld"))
    }

    /// Topic lists whose titles start with every letter group of the 4 → 5 passes, each with topics.
    static let lists: [(key: Int64, title: String)] = [(1, "Architecture"), (2, "Hardware"), (3, "iOS"), (4, "Processes"), (5, "quality"), (6, "Zoology")]

    func testModel1ToModel4ThroughBothMappingModelsAndTheInferredHop() throws {
        let (dir, bundlePath) = try billmoss()
        let bundle = try ModelBundle.load(path: bundlePath.path)
        let store = try BuiltStore(try XCTUnwrap(bundle.version(named: "Model1")), at: folder.path("model1.sqlite"))
        for list in Self.lists { try store.insert("TopicList", list.key, ["title": .text(list.title)]) }
        let contents = ["", "Swift", "A talk of twenty-two c", "Core Data migrations, one pass at a time"]
        for key in Int64(1)...12 {
            try store.insert("Topic", key, ["content": .text(contents[Int(key) % 4]), "presenterName": .text("P\(key)"),
                                            "presenterEmail": .text("p\(key)@example.com"), "dateCreated": .real(Double(key) * 1000 + 0.5),
                                            "topicList": .integer((key - 1) % 6 + 1)])
        }
        store.close()
        let path = try pipeline(bundle: bundlePath, source: "model1.sqlite", from: "Model1", to: "Model4", out: "model4.sqlite", steps: """
            { "from": "Model1", "to": "Model2", "mappingModel": "\(dir.path)/Model1ToModel2.xcmappingmodel" },
            { "from": "Model3", "to": "Model4", "mappingModel": "\(dir.path)/Model3ToModel4.xcmappingmodel" }
            """)
        let summary = try Migration(pipeline: path).run()
        XCTAssertEqual(summary.mappings.map(\.step), ["Model1 to Model2", "Model1 to Model2", "Model2 to Model3 (inferred)", "Model2 to Model3 (inferred)",
                                                      "Model3 to Model4", "Model3 to Model4"])
        let out = try ReadStore(try XCTUnwrap(bundle.version(named: "Model4")), at: folder.path("model4.sqlite"))
        // Core Data: timeBudget = content.length * 0.2 (stored in an Integer 32: truncated), then × 60;
        // content renamed to title (its renaming identifier) by the inferred hop.
        let expected: [[SQLValue]] = (Int64(1)...12).map { key in
            let content = contents[Int(key) % 4]
            return [.integer(key), .text(content), .integer(Int64(Double(content.count) * 0.2) * 60), .text("P\(key)"),
                    .text("p\(key)@example.com"), .real(Double(key) * 1000 + 0.5), .integer((key - 1) % 6 + 1)]
        }
        XCTAssertEqual(try out.rows("Topic", ["title", "timeBudget", "presenterName", "presenterEmail", "dateCreated", "topicList"]), expected)
        XCTAssertEqual(try out.rows("TopicList", ["title"]), Self.lists.map { [.integer($0.key), .text($0.title)] })
    }

    /// Core Data's multi-pass migration: three mapping models for 4 → 5, each taking the topic
    /// lists (and their topics) of some first letters. Every topic arrives exactly once, with
    /// its list; a topic without a list, or with a list of another first letter, in none of
    /// them (as in Core Data).
    /// A Model4 store of the topic lists and 30 topics (one without a list, one in a list of
    /// no pass's letters), and the pipeline running the three passes of 4 → 5 into `out`.
    func model4Passes(out: String = "model5.sqlite") throws -> (pipeline: String, bundle: ModelBundle) {
        let copied = folder.url.appendingPathComponent("fixtures/billmoss-hybrid/CoreDataMigration")
        let (dir, bundlePath) = FileManager.default.fileExists(atPath: copied.path)
            ? (copied, copied.appendingPathComponent("Model.xcdatamodeld")) : try billmoss()
        let bundle = try ModelBundle.load(path: bundlePath.path)
        if !FileManager.default.fileExists(atPath: folder.path("model4.sqlite")) {
            let store = try BuiltStore(try XCTUnwrap(bundle.version(named: "Model4")), at: folder.path("model4.sqlite"))
            for list in Self.lists { try store.insert("TopicList", list.key, ["title": .text(list.title)]) }
            try store.insert("TopicList", 7, ["title": .text("1990s")])
            for key in Int64(1)...30 {
                try store.insert("Topic", key, ["title": .text("T\(key)"), "presenterName": .text("P\(key)"), "timeBudget": .integer(key),
                                                "topicList": key == 30 ? .null : .integer((key - 1) % 7 + 1)])
            }
            store.close()
        }
        let path = try pipeline(bundle: bundlePath, source: "model4.sqlite", from: "Model4", to: "Model5", out: out, steps: """
            { "from": "Model4", "to": "Model5", "mappingModel": [
                "\(dir.path)/Model4ToModel5-1.xcmappingmodel", "\(dir.path)/Model4ToModel5-2.xcmappingmodel", "\(dir.path)/Model4ToModel5-3.xcmappingmodel" ] }
            """)
        return (path, bundle)
    }

    func testTheThreePassesOfModel4ToModel5GiveEveryTopicExactlyOnce() throws {
        let (path, bundle) = try model4Passes()
        // The passes' policy (its source is not in the fixture) makes presenters; without it
        // registered the run is refused, naming it. Registered as the declared mapping, it runs.
        assertRefusedAlike(Migration(pipeline: path)) { error in
            XCTAssertTrue("\(error)".contains("needs the migration policy class CDMTopicToTopicMigrationPolicy"), "\(error)")
        }
        let summary = try Migration(pipeline: path, policies: ["CDMTopicToTopicMigrationPolicy": Policy()]).run()
        XCTAssertEqual(summary.mappings.map(\.mapping), [
            "TopicToTopic (Model4ToModel5-1)", "TopicListToTopicList (Model4ToModel5-1)",
            "TopicToTopic (Model4ToModel5-2)", "TopicListToTopicList (Model4ToModel5-2)",
            "TopicToTopic (Model4ToModel5-3)", "TopicListToTopicList (Model4ToModel5-3)"])
        // a–h: Architecture, Hardware; i–p: iOS, Processes; q–z: quality, Zoology.
        XCTAssertEqual(summary.mappings.map(\.written), [9, 2, 8, 2, 8, 2])
        let out = try ReadStore(try XCTUnwrap(bundle.version(named: "Model5")), at: folder.path("model5.sqlite"))
        // Keys are made anew, pass by pass: compare in the source's order (timeBudget is the source key).
        let topics = try out.rows("Topic", ["title", "timeBudget", "topicList"]).sorted { Self.number($0[2]) < Self.number($1[2]) }
        let kept = (Int64(1)...29).filter { ($0 - 1) % 7 + 1 != 7 }
        XCTAssertEqual(topics.map { $0[1] }, kept.map { .text("T\($0)") }, "every topic of a lettered list, exactly once")
        XCTAssertEqual(topics.map { $0[2] }, kept.map { .integer($0) })
        // Each topic's list is the one of its title (keys are made anew: compare by title).
        let listTitles = Dictionary(uniqueKeysWithValues: try out.rows("TopicList", ["title"]).map { ($0[0], $0[1]) })
        XCTAssertEqual(Set(listTitles.values), Set(Self.lists.map { SQLValue.text($0.title) }))
        XCTAssertEqual(topics.map { listTitles[$0[3]] }, kept.map { .text(Self.lists[Int(($0 - 1) % 7)].title) })
        XCTAssertEqual(try out.count("Member"), 0, "the Member mapping adds rows only its policy's code makes")
    }

    /// The passes run in order, each pass's mappings checkpointed as they go: a run stopped
    /// in the second pass resumes there, the first pass's rows kept (at most the chunk after
    /// the last checkpoint redone), and ends with the store of a run never stopped. Pushed
    /// down (a mapping's rows one statement) and row by row (one source row a chunk).
    func testARunStoppedInTheSecondPassResumesThereWithTheFirstPassDone() throws {
        let policies = ["CDMTopicToTopicMigrationPolicy": Policy()]
        let whole = try model4Passes(out: "whole.sqlite")
        _ = try Migration(pipeline: whole.pipeline, policies: policies).run()
        let second = "TopicToTopic (Model4ToModel5-2)"
        for pushdown in [true, false] {
            let out = "stopped-\(pushdown).sqlite"
            var migration = Migration(pipeline: try model4Passes(out: out).pipeline, policies: policies)
            migration.options.pushdown = pushdown
            migration.chunkSize = 1
            migration.workers = 1
            let cancellation = Cancellation()
            migration.cancellation = cancellation
            var firstPassDone = false
            XCTAssertThrowsError(try migration.run { event in
                if event.kind == .finished, event.stage == .create, event.mapping == "TopicListToTopicList (Model4ToModel5-1)" { firstPassDone = true }
                if event.kind == .advanced || event.kind == .finished, event.stage == .create, event.mapping == second { cancellation.cancel() }
            })
            XCTAssertTrue(firstPassDone, "the first pass's rows were made before the second's")
            let checkpoint = try XCTUnwrap(CheckpointFile(destination: folder.path(out)).read())
            XCTAssertEqual(checkpoint.mappingName, second, "stopped in the second pass")
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path(out)))

            migration.cancellation = nil
            var redone: [String] = []
            let summary = try migration.run { event in
                if event.kind == .started, event.stage == .create { redone.append(event.mapping ?? "") }
            }
            XCTAssertNotNil(summary.resumed)
            XCTAssertFalse(redone.contains { $0.hasSuffix("(Model4ToModel5-1)") }, "the first pass is not made again: \(redone)")
            XCTAssertLessThanOrEqual(summary.redoneRows, 1)
            XCTAssertEqual(summary.mappings.map(\.written), [9, 2, 8, 2, 8, 2])
            try assertSameStore(folder.path("whole.sqlite"), folder.path(out))
        }
    }

    static func number(_ value: SQLValue) -> Int64 {
        if case .integer(let n) = value { return n }
        return .max
    }

    /// A bare bundle pipeline finds the mapping model of a hop as Core Data does: in the
    /// bundle's folder, by the version hashes of the models it archives. The plan says which
    /// hop runs which file; two for one hop are refused, naming both.
    func testABareBundlePipelineFindsTheMappingModelBesideTheBundle() throws {
        let (dir, bundlePath) = try billmoss()
        let bundle = try ModelBundle.load(path: bundlePath.path)
        let store = try BuiltStore(try XCTUnwrap(bundle.version(named: "Model1")), at: folder.path("model1.sqlite"))
        try store.insert("TopicList", 1, ["title": .text("Architecture")])
        try store.insert("Topic", 1, ["content": .text("Swift"), "presenterName": .text("P"), "topicList": .integer(1)])
        try store.insert("Topic", 2, ["content": .text("A talk of twenty-two c"), "presenterName": .text("Q")])
        store.close()
        func bare(to version: String, extra: String = "") throws -> String {
            try folder.pipeline("bare-\(UUID().uuidString.prefix(6)).json", """
                { "format": 1, "models": "\(bundlePath.path)"\(extra),
                  "source": { "store": "\(folder.path("model1.sqlite"))", "layout": "coredata" },
                  "destination": { "store": "\(folder.path("out-\(version).sqlite"))", "layout": "coredata", "version": "\(version)" } }
                """)
        }
        let path = try bare(to: "Model4")
        let report = try PlanReport.make(Migration(pipeline: path))
        XCTAssertEqual(report.hops.map(\.kind), ["found", "inferred", "found"])
        XCTAssertEqual(report.hops.map(\.mappingModels), [["\(dir.path)/Model1ToModel2.xcmappingmodel"], [], ["\(dir.path)/Model3ToModel4.xcmappingmodel"]])
        _ = try Migration(pipeline: path).run()
        let out = try ReadStore(try XCTUnwrap(bundle.version(named: "Model4")), at: folder.path("out-Model4.sqlite"))
        XCTAssertEqual(try out.rows("Topic", ["title", "timeBudget", "topicList"]),
                       [[.integer(1), .text("Swift"), .integer(60), .integer(1)], [.integer(2), .text("A talk of twenty-two c"), .integer(240), .null]],
                       "the mapping models' timeBudget, not the model's default 5")

        // Told to look nowhere, every hop is inferred.
        let inferred = try bare(to: "Model4", extra: ", \"mappingModels\": false")
        XCTAssertEqual(try PlanReport.make(Migration(pipeline: inferred)).hops.map(\.kind), ["inferred", "inferred", "inferred"])

        // 4 → 5 has three mapping models (the passes of one migration): Core Data would take any.
        XCTAssertThrowsError(try PlanReport.make(Migration(pipeline: try bare(to: "Model5")))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("3 mapping models in \(dir.path) map version Model4 → Model5"), text)
            XCTAssertTrue(text.contains("Model4ToModel5-1.xcmappingmodel, \(dir.path)/Model4ToModel5-2.xcmappingmodel"), text)
        }
    }

    // MARK: FUNCTION($entityPolicy, …)

    /// A mapping model whose value expression calls its policy class,
    /// `FUNCTION($entityPolicy, "shout:", $source.body)`: the etl policy registered under the
    /// class's name gives the function by selector; without it, the run is refused naming
    /// the class and the selector.
    func testAValueExpressionCallsTheFunctionThePolicyRegistersBySelector() throws {
        let (bundle, mapping) = try NotesMappingModel.write(
            in: folder.url, note: #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity>"#,
            expressions: [("body", #"FUNCTION($entityPolicy, "shout:", $source.body)"#)])
        let n1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n1"))
        let store = try BuiltStore(n1, at: folder.path("n1.sqlite"))
        try store.insert("Note", 1, ["body": .text("hello")])
        try store.insert("Note", 2, [:])
        store.close()
        let path = try pipeline(bundle: bundle, source: "n1.sqlite", from: "n1", to: "n2", out: "n2.sqlite", steps: """
            { "from": "n1", "to": "n2", "mappingModel": "\(mapping.path)" }
            """)
        assertRefusedAlike(Migration(pipeline: path, policies: ["NotePolicy": Policy()])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("calls FUNCTION($entityPolicy, \"shout:\", …) of the migration policy class App.NotePolicy"), text)
            XCTAssertTrue(text.contains("the etl policy registered as 'NotePolicy' has no function for it"), text)
        }
        let shout = ExpressionFunction([.string], returns: .string) { arguments in
            guard case .string(let text) = arguments[0] else { return .null }
            return .string(text.uppercased() + "!")
        }
        _ = try Migration(pipeline: path, policies: ["NotePolicy": Policy(functions: ["shout:": shout])]).run()
        let out = try ReadStore(try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n2")), at: folder.path("n2.sqlite"))
        XCTAssertEqual(try out.rows("Note", ["body"]), [[.integer(1), .text("HELLO!")], [.integer(2), .null]])
    }

    /// An imported expression the plan refuses (here the policy's function takes an integer,
    /// and the mapping model calls it with a string) is named where the mapping model says
    /// it: the xcmapping.xml, the line of the attribute mapping, the entity mapping and the
    /// attribute, with etl's translation of the expression.
    func testAnImportedExpressionThePlanRefusesIsNamedWhereTheMappingModelSaysIt() throws {
        let (bundle, mapping) = try NotesMappingModel.write(
            in: folder.url, note: #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity>"#,
            expressions: [("body", #"FUNCTION($entityPolicy, "shout:", $source.body)"#)])
        let n1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n1"))
        try BuiltStore(n1, at: folder.path("n1.sqlite")).close()
        let path = try pipeline(bundle: bundle, source: "n1.sqlite", from: "n1", to: "n2", out: "n2.sqlite", steps: """
            { "from": "n1", "to": "n2", "mappingModel": "\(mapping.path)" }
            """)
        let shout = ExpressionFunction([.integer], returns: .string) { _ in .null }
        let xml = mapping.appendingPathComponent("xcmapping.xml").path
        let attributeLine = try XCTUnwrap(String(contentsOfFile: xml, encoding: .utf8).components(separatedBy: "\n")
            .firstIndex { $0.contains("XDDEVATTRIBUTEMAPPING\" id=") }) + 1
        assertRefusedAlike(Migration(pipeline: path, policies: ["NotePolicy": Policy(functions: ["shout:": shout])])) { error in
            guard let error = error as? DocumentError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.file, xml)
            XCTAssertEqual(error.line, attributeLine, "\(error)")
            XCTAssertEqual(error.path, "entity mapping NoteToNote, attribute body")
            // The character is the translation's: no column of the XML says where in it.
            XCTAssertEqual(error.message, "in expression \"NotePolicy_shout_($source.body)\" (etl's translation of it), at character 19: "
                           + "NotePolicy_shout_: argument 1 must be integer, found string")
        }
    }

    // MARK: mioke-helper

    /// `messageID \u3c00 10000` is `messageID < 10000`: the other messages are not migrated.
    ///
    /// The mapping model was made before version 1 gained `Chat.lastMessage` ↔
    /// `Message.lastMessageOf` (the source model it archives has no relationship): for the
    /// bundle's version 1 it is stale, refused as Core Data refuses it; on the version 1 it
    /// was made for (the bundle's, without the two relationships) it runs.
    func testTheEscapedLessThanFiltersTheMessages() throws {
        let set = try project("mioke-helper")
        let bundlePath = set.appendingPathComponent("CoreDataTest/CoreDataTest.xcdatamodeld")
        let step = """
            { "from": "CoreDataTest", "to": "CoreDataTest v2", "mappingModel": "\(set.path)/CoreDataTest/v1_to_v2.xcmappingmodel" }
            """
        var bundle = try ModelBundle.load(path: bundlePath.path)
        try BuiltStore(try XCTUnwrap(bundle.version(named: "CoreDataTest")), at: folder.path("today.sqlite")).close()
        let stale = try pipeline(bundle: bundlePath, source: "today.sqlite", from: "CoreDataTest", to: "CoreDataTest v2", out: "stale.sqlite", steps: step)
        assertRefusedAlike(Migration(pipeline: stale)) { error in
            XCTAssertTrue("\(error)".contains("differs from version CoreDataTest in entity Chat"), "\(error)")
        }

        let v1 = bundlePath.appendingPathComponent("CoreDataTest.xcdatamodel/contents")
        let xml = try String(contentsOf: v1, encoding: .utf8).split(separator: "\n").filter { !$0.contains("lastMessage") }.joined(separator: "\n")
        try xml.write(to: v1, atomically: true, encoding: .utf8)
        bundle = try ModelBundle.load(path: bundlePath.path)
        let store = try BuiltStore(try XCTUnwrap(bundle.version(named: "CoreDataTest")), at: folder.path("v1.sqlite"))
        let ids: [Int64] = [1, 9999, 10000, 10001, 42]
        for (index, id) in ids.enumerated() {
            try store.insert("Message", Int64(index + 1), ["chatID": .integer(Int64(index % 2)), "content": .blob([UInt8(index)]),
                                                           "messageID": .integer(id), "text": .text("m\(id)")])
        }
        try store.insert("Chat", 1, ["chatID": .integer(0), "name": .text("even")])
        store.close()
        let path = try pipeline(bundle: bundlePath, source: "v1.sqlite", from: "CoreDataTest", to: "CoreDataTest v2", out: "v2.sqlite", steps: step)
        _ = try Migration(pipeline: path).run()
        let out = try ReadStore(try XCTUnwrap(bundle.version(named: "CoreDataTest v2")), at: folder.path("v2.sqlite"))
        XCTAssertEqual(try out.rows("Message", ["messageID", "text", "chatID", "content", "options"]).map { Array($0.dropFirst()) }, [
            [.integer(1), .text("m1"), .integer(0), .blob([0]), .integer(0)],
            [.integer(9999), .text("m9999"), .integer(1), .blob([1]), .integer(0)],
            [.integer(42), .text("m42"), .integer(0), .blob([4]), .integer(0)],
        ])
        XCTAssertEqual(try out.rows("Chat", ["chatID", "name", "lastMessage"]).map { Array($0.dropFirst()) }, [[.integer(0), .text("even"), .null]])
    }

    // MARK: objcio-moody

    func moody() throws -> (folder: URL, bundle: URL, models: ModelBundle) {
        let set = try project("objcio-moody")
        let dir = set.appendingPathComponent("Migrations/Migrations")
        let bundle = dir.appendingPathComponent("Moody.xcdatamodeld")
        return (dir, bundle, try ModelBundle.load(path: bundle.path))
    }

    /// Moody 2 → 6 through the four mapping models: 2 → 3 sets relationships by Key Path and
    /// Mapping Name (a mood's continent is its country's: `$source.country.continent`), 5 → 6
    /// needs the app's `Country5ToCountry6Policy`, ported here as the mapping model says: a
    /// continent per country's `isoContinent`, once per code, linked to its countries.
    func testMoody2ToMoody6ThroughTheFourMappingModels() throws {
        let (dir, bundlePath, bundle) = try moody()
        let store = try BuiltStore(try XCTUnwrap(bundle.version(named: "Moody 2")), at: folder.path("moody2.sqlite"))
        // Continents 10, 20; countries 1–4 (country 4 has no continent); moods 1–8.
        for (key, code) in [(Int64(1), Int64(10)), (2, 20)] {
            try store.insert("Continent", key, ["numericISO3166Code": .integer(code), "updatedAt": .real(1), "numberOfCountries": .integer(2)])
        }
        let countryContinent: [Int64: Int64?] = [3: 1, 4: 1, 5: 2, 6: nil]
        for key in countryContinent.keys.sorted() {
            try store.insert("Country", key, ["numericISO3166Code": .integer(100 + key), "updatedAt": .real(2),
                                              "continent": countryContinent[key]!.map(SQLValue.integer) ?? .null])
        }
        for key in Int64(1)...8 {
            try store.insert("Mood", key, ["date": .real(Double(key)), "rating": .integer(key % 5), "creatorID": .text("c\(key)"),
                                           "markedForRemoteDeletion": .integer(0), "country": .integer((key - 1) % 4 + 3)])
        }
        store.close()
        let policy = Policy(
            creates: ["Continent"],
            create: { country, output in
                guard let code = country.integer("isoContinent"), code != 0 else { return }
                output.insert("Continent", ["numericISO3166Code": .integer(code)], uniqueKey: .integer(code))
            },
            relate: { row in
                guard row.entity == "Country" else { return [:] }
                return ["continent": try row.destinations("\(row.mapping)/Continent", [row.source.key])]
            })
        let path = try pipeline(bundle: bundlePath, source: "moody2.sqlite", from: "Moody 2", to: "Moody 6", out: "moody6.sqlite", steps: """
            { "from": "Moody 2", "to": "Moody 3", "mappingModel": "\(dir.path)/Moody 2-Moody 3.xcmappingmodel" },
            { "from": "Moody 3", "to": "Moody 4", "mappingModel": "\(dir.path)/Moody 3-Moody 4.xcmappingmodel" },
            { "from": "Moody 4", "to": "Moody 5", "mappingModel": "\(dir.path)/Moody 4-Moody 5.xcmappingmodel" },
            { "from": "Moody 5", "to": "Moody 6", "mappingModel": "\(dir.path)/Moody 5-Moody 6.xcmappingmodel" }
            """)
        _ = try Migration(pipeline: path, policies: ["Country5ToCountry6Policy": policy]).run()
        let out = try ReadStore(try XCTUnwrap(bundle.version(named: "Moody 6")), at: folder.path("moody6.sqlite"))
        let countries = try out.rows("Country", ["numericISO3166Code", "continent"])
        XCTAssertEqual(countries.map { $0[1] }, [103, 104, 105, 106].map { .integer($0) })
        let continents = Dictionary(uniqueKeysWithValues: try out.rows("Continent", ["numericISO3166Code"]).map { ($0[0], $0[1]) })
        XCTAssertEqual(continents.count, 2, "one continent per code")
        XCTAssertEqual(countries.map { $0[2] == .null ? .null : continents[$0[2]]! }, [.integer(10), .integer(10), .integer(20), .null],
                       "each country's continent: the code its Moody 2 continent had, carried as isoContinent through 4 → 5")
        let countryCodes = Dictionary(uniqueKeysWithValues: countries.map { ($0[0], $0[1]) })
        let moods = try out.rows("Mood", ["creatorID", "rating", "country"])
        XCTAssertEqual(moods.map { $0[1] }, (Int64(1)...8).map { .text("c\($0)") })
        XCTAssertEqual(moods.map { $0[2] }, (Int64(1)...8).map { .integer($0 % 5) })
        XCTAssertEqual(moods.map { countryCodes[$0[3]] }, (Int64(1)...8).map { .integer(100 + ($0 - 1) % 4 + 3) })
    }
}

/// A Core Data store of one model version, written row by row through its layout (table,
/// column and entity numbers as Core Data lays them out).
struct BuiltStore {
    let db: Database
    let layout: CoreDataLayout

    init(_ model: Model, at path: String) throws {
        try writeEmptyCoreDataStore(of: model, to: path)
        db = try Database(path: path, mode: .readWrite)
        layout = CoreDataLayout(model: model)
    }

    /// A row of `entity` with key `key`: attributes and to-one keys by name; an attribute
    /// not given has its default, as Core Data writes a new object.
    func insert(_ entity: String, _ key: Int64, _ values: [String: SQLValue]) throws {
        var values = values
        for attribute in layout.model.attributes(of: entity) where values[attribute.name] == nil {
            guard let value = attribute.defaultValue else { continue }
            // The model counts dates from 1970, Core Data's columns from 2001.
            if attribute.type == .date, case .real(let seconds) = value { values[attribute.name] = .real(seconds - 978_307_200) } else { values[attribute.name] = value }
        }
        let table = layout.table(of: entity)
        var columns = [table.keyColumn] + table.insertDefaults.map(\.column)
        var arguments = [SQLValue.integer(key)] + table.insertDefaults.map(\.value)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            if layout.model.attribute(name, of: entity) != nil {
                columns.append(layout.column(ofAttribute: name, entity: entity))
                arguments.append(value)
            } else if let r = layout.model.relationship(name, of: entity), case .foreignKey(_, let column) = layout.storage(ofRelationship: name, entity: entity) {
                columns.append(column)
                arguments.append(value)
                if let entityColumn = layout.entityColumn(ofRelationship: name, entity: entity) {
                    columns.append(entityColumn)
                    arguments.append(value == .null ? .null : .integer(Int64(layout.entityNumber(of: r.destination)!)))
                }
            } else {
                throw DocumentError(file: "test", line: 0, column: 0, path: "/", message: "\(entity).\(name) is no attribute or to-one")
            }
        }
        _ = try db.rows("INSERT INTO \(Database.quote(table.name)) (\(columns.map(Database.quote).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))", arguments)
        let root = layout.model.lineage(of: entity).last?.name ?? entity
        _ = try db.rows("UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_NAME = ?", [.integer(key), .text(root)])
    }

    func close() { db.close() }
}

/// A migrated Core Data store read back by entity and property names.
struct ReadStore {
    let db: Database
    let layout: CoreDataLayout

    init(_ model: Model, at path: String) throws {
        db = try Database(path: path, mode: .readOnly)
        layout = CoreDataLayout(model: model)
    }

    /// The key and the named attributes and to-one keys of every row of `entity` (its own,
    /// not its sub-entities'), in key order.
    func rows(_ entity: String, _ properties: [String]) throws -> [[SQLValue]] {
        let table = layout.table(of: entity)
        let columns = properties.map { name -> String in
            if layout.model.attribute(name, of: entity) != nil { return Database.quote(layout.column(ofAttribute: name, entity: entity)) }
            guard case .foreignKey(_, let column) = layout.storage(ofRelationship: name, entity: entity) else { return "NULL" }
            return Database.quote(column)
        }
        let number = layout.entityNumber(of: entity).map { " WHERE Z_ENT = \($0)" } ?? ""
        return try db.rows("SELECT \(([Database.quote(table.keyColumn)] + columns).joined(separator: ", ")) FROM \(Database.quote(table.name))\(number) ORDER BY 1")
    }

    func count(_ entity: String) throws -> Int64 {
        try db.scalarInt("SELECT count(*) FROM \(Database.quote(layout.table(of: entity).name))")
    }
}
