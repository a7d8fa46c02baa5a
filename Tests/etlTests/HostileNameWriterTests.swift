import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// The writers of code and model files copy names from files nobody vouches for (issue 45):
/// a mapping model's `migrationpolicyclassname`, a kept model's entity and property names.
/// Whatever those hold, the Swift is the code etl means (names only inside comments and
/// literals), the XML is well-formed and reads back as the model, and files go only into
/// the folder given.
extension CommandLineTests {
    /// A class name with newlines (a top-level `fatalError()` between them), a quote, U+202E
    /// (right-to-left override) and a `/`.
    static let hostileClass = "Evil\nfatalError()\n\"\u{202E}/x"

    func testPortWritesAHostileClassNameOnlyInsideCommentsAndLiteralsAndIntoTheFolderGiven() throws {
        let (bundle, mapping) = try NotesMappingModel.write(
            in: folder, note: #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity>"#,
            expressions: [("body", #"FUNCTION($entityPolicy, "shout\"):", $source.body)"#)])
        let file = mapping.appendingPathComponent("xcmapping.xml")
        let escaped = Self.hostileClass.replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(of: "\"", with: "&quot;")
        let xml = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(xml.contains("App.NotePolicy"))
        try Data(xml.replacingOccurrences(of: "App.NotePolicy", with: "App." + escaped).utf8).write(to: file)

        let out = folder.appendingPathComponent("Ported")
        let ported = try run(["mapping", "port", mapping.path, "--models", bundle.path, "--swift", out.path])
        XCTAssertEqual(ported.status, 0, ported.stderr)
        // One file, named by an identifier: no folder inside Ported, nothing beside it.
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        XCTAssertEqual(written, ["Evil_fatalError______x.swift"])
        let swift = try String(contentsOf: out.appendingPathComponent(written[0]), encoding: .utf8)
        XCTAssertFalse(swift.unicodeScalars.contains("\u{202E}"), swift)
        XCTAssertFalse(swift.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "fatalError()" }, swift)
        XCTAssertTrue(swift.contains("public enum Evil_fatalError______x {"), swift)
        XCTAssertTrue(swift.contains(#"ETLCommand.main(policies: ["Evil\u{A}fatalError()\u{A}\"\u{202E}/x": Evil_fatalError______x.policy])"#), swift)
        XCTAssertTrue(swift.contains(#""shout\"):": ExpressionFunction("#), swift)
        // Every line that is not a comment is the skeleton's own code.
        for line in swift.split(separator: "\n", omittingEmptySubsequences: false) where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            XCTAssertFalse(line.contains("fatalError("), String(line))
        }

        let swiftc = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swiftc" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let swiftc else { throw XCTSkip("no swiftc on PATH to type-check the ported file") }
        let modules = Bundle.main.bundleURL.appendingPathComponent("Modules").path
        let checked = try ToolProcess.run(["-typecheck", "-I", modules, "-I", repositoryPath("Sources/CSQLite"), "-I", repositoryPath("Sources/CZstd"),
                                           "-I", repositoryPath("Sources/CZlib"), out.appendingPathComponent(written[0]).path], program: swiftc, in: folder)
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
    }

    func testModelFromStoreWritesHostileNamesAsWellFormedXMLOrRefusesWhatXMLCannotHold() throws {
        let hostile = "Evil\"<x>&\n\u{85}\u{202E}é"
        let store = try storeKeeping([.init(name: "Plain", attributes: ["a"]), .init(name: hostile, parent: "Plain", attributes: ["b\u{2028}c", "d'\te"])],
                                     name: "hostile.sqlite")
        let out = folder.appendingPathComponent("Hostile.xcdatamodel")
        let written = try timedEtl(["model", "from-store", store, "--xcdatamodel", out.path])
        XCTAssertEqual(written.status, 0, written.stderr)
        let contents = try String(contentsOf: out.appendingPathComponent("contents"), encoding: .utf8)
        XCTAssertFalse(contents.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{85}" || $0 == "\u{2028}" }, contents)
        XCTAssertTrue(contents.contains(#"name="Evil&quot;&lt;x&gt;&amp;&#10;&#x85;&#x202E;é""#), contents)
        // It reads back (well-formed, through the reader of untrusted XML) as the model kept.
        let model = try ModelBundle.loadVersion(path: out.path)
        XCTAssertEqual(model.entity(named: hostile)?.parent, "Plain")
        XCTAssertEqual(model.entity(named: hostile)?.attributes.map(\.name).sorted(), ["b\u{2028}c", "d'\te"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["contents"])

        // NUL has no place in XML 1.0, not even as a reference: refused, naming it, nothing written.
        let nul = try storeKeeping([.init(name: "A\u{0}B")], name: "nul.sqlite")
        let refusedOut = folder.appendingPathComponent("Nul.xcdatamodel")
        let refused = try timedEtl(["model", "from-store", nul, "--xcdatamodel", refusedOut.path])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("\(nul): entity A&#x0;B: its name holds the character U+0000, which XML 1.0 cannot hold"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: refusedOut.path))
    }
}
