import XCTest
import Foundation
import ETL
import ETLExpression
import ETLBatch
import ETLTestSupport

/// `etl plan`: what a run will do, before it writes anything.
extension CommandLineTests {
    func planJSON(_ result: Result) throws -> PlanReport {
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(PlanReport.self, from: Data(result.stdout.utf8))
    }

    func testPlanOfTheBooksPipelineSaysHowEachMappingRunsAndWhy() throws {
        // Given the books pipeline and its committed v1 store…
        let text = try etl("plan", pipeline)
        XCTAssertEqual(text.status, 0, text.stderr)
        // …both hops are the pipeline's own and run inside SQLite, the second with Files' forEach.
        for part in ["source   \(Self.root.appendingPathComponent("data/books-v1.sqlite").path) (read: version books-v1)",
                     "hop 1: books-v1 → books-v2  v1 to v2  [explicit]  runs inside SQLite",
                     "Authors (Book → Author)  inside SQLite: INSERT … SELECT of one row per distinct uniqueBy key",
                     "Books (Book → Book)      inside SQLite: INSERT … SELECT in ranges of source keys; each row keeps its source row's key",
                     "hop 2: books-v2 → books-v3  v2 to v3  [explicit]  runs inside SQLite",
                     "Files (Book → File)        inside SQLite: INSERT … SELECT of one row per (source row, item) pair",
                     // …and run as one step (`StepFusion`), its mappings over v1's rows.
                     "fused: books-v1 → books-v3  v1 to v2 + v2 to v3  runs inside SQLite",
                     "its hops run as one step, where the source holds no row the first would reject or leave invalid",
                     "  Authors (Book → Author)  inside SQLite: INSERT … SELECT of one row per distinct uniqueBy key",
                     // …where Authors is created last (`StepPlan.createOrder`), not in hop 1 where it is last already.
                     "key is null); created after the mappings below it, while a second connection works out its keys (a source over 1 MiB)"] {
            XCTAssertTrue(text.stdout.contains(part), "plan lacks '\(part)':\n\(text.stdout)")
        }
        XCTAssertFalse(text.stdout.contains("not fused:"), text.stdout)
        XCTAssertEqual(text.stdout.components(separatedBy: "created after the mappings below it").count, 2, text.stdout)
        let report = try planJSON(try etl("plan", pipeline, "--json"))
        XCTAssertEqual(report.hops.map(\.kind), ["explicit", "explicit"])
        XCTAssertEqual(report.hops.map(\.runs), ["inside SQLite", "inside SQLite"])
        XCTAssertEqual(report.hops[1].mappings.map(\.runs), ["inside SQLite", "inside SQLite", "inside SQLite", "inside SQLite"])
        XCTAssertEqual(report.sourceVersion, "books-v1")
        XCTAssertEqual(report.fused?.map(\.kind), ["fused"])
        XCTAssertEqual(report.fused?.first?.mappings.map(\.source), ["User", "Book", "Book", "Book"])
        XCTAssertNil(report.notFused)
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("out/books-v3.sqlite.etl-lock").path))

        // The run then does what the plan said.
        let run = try etl("run", pipeline, "--destination", "v3.sqlite")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stdout.contains("ran row by row"), run.stdout)
        XCTAssertTrue(run.stdout.contains("note: steps v1 to v2 and v2 to v3 ran as one step"), run.stdout)
    }

    func testPlanOfTheCoreDataPipelineReadsTheSourcesVersion() throws {
        let coreData = Self.root.appendingPathComponent("pipelines/books-coredata.json").path
        let source = Self.root.appendingPathComponent("data/books-v1-coredata.sqlite").path
        let report = try planJSON(try etl("plan", coreData, "--source", source, "--json"))
        XCTAssertEqual(report.source, source)
        XCTAssertEqual(report.sourceVersion, "books-v1")
        XCTAssertEqual(report.targetVersion, "books-v3")
        XCTAssertEqual(report.hops.map { "\($0.from) → \($0.to) \($0.kind) \($0.runs)" },
                       ["books-v1 → books-v2 explicit inside SQLite", "books-v2 → books-v3 explicit inside SQLite"])
        XCTAssertEqual(report.hops.flatMap(\.drops), [])
    }

    func testPlanOfAnInferredHopCountsWhatItDrops() throws {
        // Given the Books bundle with no explicit step to v2: the hop is inferred, and v2 has no Book.authorName.
        let source = Self.root.appendingPathComponent("data/books-v1-coredata.sqlite").path
        let bundle = Self.root.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path
        let pipeline = folder.appendingPathComponent("inferred.json")
        func write(drop: String) throws {
            try Data("""
                { "format": 1, "models": "\(bundle)",
                  "source": { "store": "\(source)", "layout": "coredata" },
                  "destination": { "store": "v2.sqlite", "layout": "coredata", "version": "books-v2" }\(drop) }
                """.utf8).write(to: pipeline)
        }
        let withAuthor = try Database(path: source, mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOK WHERE ZAUTHORNAME IS NOT NULL")
        XCTAssertGreaterThan(withAuthor, 0)
        // Undeclared, the drop refuses the plan as it refuses the run.
        try write(drop: "")
        try assertPlanAndRunRefuseAlike([pipeline.path], saying: #"add "drop": ["Book.authorName"]"#)
        try write(drop: #", "drop": ["Book.authorName"]"#)

        let report = try planJSON(try etl("plan", pipeline.path, "--json"))
        XCTAssertEqual(report.hops.count, 1)
        XCTAssertEqual(report.hops[0].kind, "inferred")
        XCTAssertEqual(report.hops[0].drops, [PlanReport.Drop(name: "Book.authorName", kind: "attribute", count: Int(withAuthor))])
        XCTAssertEqual(report.hops[0].newEntities, ["Author"])
        let text = try etl("plan", pipeline.path)
        XCTAssertTrue(text.stdout.contains("[inferred]"), text.stdout)
        XCTAssertTrue(text.stdout.contains("drops attribute Book.authorName, \(withAuthor) non-null values in the source"), text.stdout)

        // Without a store to read, the drop is named but not counted.
        let unread = folder.appendingPathComponent("unread.json")
        try Data("""
            { "format": 1, "models": "\(bundle)",
              "source": { "store": "missing.sqlite", "layout": "coredata", "version": "books-v1" },
              "destination": { "store": "v2.sqlite", "layout": "coredata", "version": "books-v2" } }
            """.utf8).write(to: unread)
        let named = try planJSON(try etl("plan", unread.path, "--json"))
        XCTAssertNil(named.source)
        XCTAssertEqual(named.hops[0].drops, [PlanReport.Drop(name: "Book.authorName", kind: "attribute", count: nil)])

        // The diagram: versions → hops → mappings, in Mermaid's flowchart syntax.
        let diagram = try etl("plan", pipeline.path, "--mermaid")
        XCTAssertEqual(diagram.status, 0, diagram.stderr)
        XCTAssertEqual(MermaidFlowchart.problems(diagram.stdout), [], diagram.stdout)
        XCTAssertTrue(diagram.stdout.contains("drops attribute Book.authorName (\(withAuthor) in the source)"), diagram.stdout)
        for pipeline in [self.pipeline, Self.root.appendingPathComponent("pipelines/books-coredata.json").path] {
            let diagram = try etl("plan", pipeline, "--mermaid")
            XCTAssertEqual(MermaidFlowchart.problems(diagram.stdout), [], diagram.stdout)
        }
    }

    func testTheMermaidCheckFindsBrokenFlowcharts() {
        XCTAssertEqual(MermaidFlowchart.problems("flowchart LR\n  a([\"x\"])\n  b[\"y\"]\n  a --> b"), [])
        XCTAssertFalse(MermaidFlowchart.problems("graph\n  a --> b").isEmpty, "no direction")
        XCTAssertFalse(MermaidFlowchart.problems("flowchart LR\n  a[\"x \"y\" z\"]").isEmpty, "a quote inside a label")
        XCTAssertFalse(MermaidFlowchart.problems("flowchart LR\n  subgraph s[\"x\"]\n  a[\"y\"]").isEmpty, "no end")
        XCTAssertFalse(MermaidFlowchart.problems("flowchart LR\n  a[\"x\"]\n  a --> c").isEmpty, "an undefined node")
    }

    func testBatchDryRunSaysWhatItWouldMigrateSkipAndRefuseAndWritesNothing() throws {
        let archive = folder.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        try BooksSample.write(rows: 30, seed: 1, to: archive.appendingPathComponent("a-v1.sqlite").path)
        XCTAssertEqual(try etl("run", pipeline, "--source", "archive/a-v1.sqlite", "--destination", "archive/b-v3.sqlite").status, 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: archive.appendingPathComponent("c-empty.sqlite").path, contents: Data()))

        let dry = try etl("batch", pipeline, "--stores", "archive", "--out", "upgraded", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.stderr)
        for part in ["a-v1.sqlite     migrate  books-v1 → books-v3 (2 hops)", "b-v3.sqlite     skip     up to date at books-v3",
                     "c-empty.sqlite  refuse   source store \(archive.path)/c-empty.sqlite: is an empty file (0 bytes)",
                     "dry run, nothing written: 1 to migrate, 1 up to date, 1 refused, of 3 stores"] {
            XCTAssertTrue(dry.stdout.contains(part), "dry run lacks '\(part)':\n\(dry.stdout)")
        }
        let json = try etl("batch", pipeline, "--stores", "archive", "--out", "upgraded", "--dry-run", "--json")
        XCTAssertEqual(json.status, 0, json.stderr)
        let plans = try JSONDecoder().decode([BatchStorePlan].self, from: Data(json.stdout.utf8))
        XCTAssertEqual(plans.map { "\($0.store) \($0.decision.rawValue) \($0.fromVersion ?? "-") \($0.hops)" },
                       ["a-v1.sqlite migrate books-v1 2", "b-v3.sqlite skip books-v3 0", "c-empty.sqlite refuse - 0"])
        XCTAssertEqual(try etl("batch", pipeline, "--stores", "archive", "--out", "upgraded", "--json").status, 2, "--json without --dry-run")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("upgraded").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: archive.path).sorted(), ["a-v1.sqlite", "b-v3.sqlite", "c-empty.sqlite"])
    }
}

/// A small check of the Mermaid flowchart syntax `etl plan --mermaid` writes: a
/// `flowchart` header with a direction; node definitions `id["label"]` or `id(["label"])`;
/// `subgraph id["label"]` … `end`, `direction XX`; edges `id --> id` between defined ids;
/// labels without a bare double quote.
enum MermaidFlowchart {
    static func problems(_ text: String) -> [String] {
        var lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let header = lines.first, let _ = header.wholeMatch(of: /flowchart (LR|RL|TB|TD|BT)/) else {
            return ["the first line must be `flowchart LR` (or another direction): \(lines.first ?? "")"]
        }
        lines.removeFirst()
        var problems: [String] = []
        var defined = Set<String>()
        var edges: [(String, String)] = []
        var depth = 0
        let label = #"\"[^\"]*\""#
        let node = try! Regex(#"([A-Za-z][A-Za-z0-9_]*)(\(\[\#(label)\]\)|\[\#(label)\])"#)
        let subgraph = try! Regex(#"subgraph ([A-Za-z][A-Za-z0-9_]*)\[\#(label)\]"#)
        let edge = /([A-Za-z][A-Za-z0-9_]*) --> ([A-Za-z][A-Za-z0-9_]*)/
        for line in lines {
            if let match = try? subgraph.wholeMatch(in: line) {
                defined.insert(String(match.output[1].substring!))
                depth += 1
            } else if line == "end" {
                depth -= 1
                if depth < 0 { problems.append("`end` without subgraph") }
            } else if line.wholeMatch(of: /direction (LR|RL|TB|TD|BT)/) != nil {
                if depth == 0 { problems.append("`direction` outside a subgraph") }
            } else if let match = try? node.wholeMatch(in: line) {
                defined.insert(String(match.output[1].substring!))
            } else if let match = line.wholeMatch(of: edge) {
                edges.append((String(match.output.1), String(match.output.2)))
            } else {
                problems.append("not a flowchart statement: \(line)")
            }
        }
        if depth != 0 { problems.append("\(depth) subgraph(s) without `end`") }
        for (a, b) in edges where !defined.contains(a) || !defined.contains(b) {
            problems.append("edge \(a) --> \(b) names an undefined node")
        }
        return problems
    }
}

/// `etl plan` refuses what `etl run` refuses before reading a row, with the same message and
/// exit code: data a step leaves unread that the pipeline does not drop (plan printed "drops …"
/// and exited 0, run then exited 1), and a store of another version, which lacks a column
/// the step reads (plan did not look at the columns).
extension CommandLineTests {
    func assertPlanAndRunRefuseAlike(_ arguments: [String], saying part: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let plan = try ToolProcess.run(["plan"] + arguments, in: folder)
        let run = try ToolProcess.run(["run"] + arguments, in: folder)
        XCTAssertNotEqual(run.status, 0, run.stdout, file: file, line: line)
        XCTAssertEqual(plan.status, run.status, plan.stdout + plan.stderr, file: file, line: line)
        XCTAssertEqual(plan.stderr, run.stderr, file: file, line: line)
        XCTAssertTrue(run.stderr.contains(part), run.stderr, file: file, line: line)
    }

    func testPlanRefusesWhatRunRefusesBeforeReadingARow() throws {
        XCTAssertEqual(try etl("sample", "books", "--rows", "200", "--out", "v1.sqlite").status, 0)
        let users = #"{ "name": "Users", "source": "User", "destination": "User", "attributes": { "userId": "$source.userId", "name": "$source.name" } }"#
        let unread = try temporary.booksStepPipeline("unread.json", mappings: users)
        try assertPlanAndRunRefuseAlike([unread], saying: "leaves data of source")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("v2.sqlite").path))

        // A v3 store (the books pipeline's result) given to the v1 → v2 step.
        XCTAssertEqual(try etl("run", pipeline, "--source", "v1.sqlite", "--destination", "v3.sqlite").status, 0)
        let books = try temporary.booksStepPipeline("books.json", mappings: """
            { "name": "Books", "source": "Book", "destination": "Book", "attributes": { "title": "$source.title" } }
            """)
        try assertPlanAndRunRefuseAlike([books, "--source", "v3.sqlite"], saying: "no column authorName")
    }
}
