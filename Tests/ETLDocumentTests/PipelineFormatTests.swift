import XCTest
import Foundation
import ETLDocument

/// The pipeline format's description: docs/pipeline.md's tables of keys are its own, and
/// each place's keys are distinct.
final class PipelineFormatTests: XCTestCase {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/pipeline.md")

    func testDocsTablesOfKeysAreTheFormats() throws {
        let text = try String(contentsOf: Self.docs, encoding: .utf8)
        for place in [PipelineKey.Place.pipeline, .step, .mapping] {
            let table = PipelineFormat.docsTable(place)
            XCTAssertTrue(text.contains("\n\n" + table + "\n"),
                          "docs/pipeline.md should hold the table of \(place) keys exactly as the format describes them:\n\(table)")
        }
    }

    func testTheDocsTableGroupsKeysOfOneMeaningInARow() {
        let table = PipelineFormat.docsTable(.mapping)
        XCTAssertTrue(table.hasPrefix("| key | meaning |\n|---|---|\n| `name` |"), table)
        XCTAssertTrue(table.contains("\n| `source`, `destination` | entity names"), table)
        XCTAssertTrue(PipelineFormat.docsTable(.step).hasPrefix("| key | required | meaning |\n"))
    }

    func testKeysOfAPlaceAreDistinctAndOfThatPlace() {
        for place in PipelineKey.Place.allCases {
            let keys = PipelineFormat.keys(in: place)
            XCTAssertEqual(Set(keys.map(\.name)).count, keys.count, "\(place)")
            XCTAssertTrue(keys.allSatisfy { $0.place == place || (place == .destination && $0.place == .store) }, "\(place)")
        }
    }

    /// Only a bundle pipeline's step names versions (`"from"`) or a mapping model; the order
    /// is the same either way.
    func testAStepWithoutBundleTakesNoBundleKey() {
        typealias Step = PipelineFormat.Step
        XCTAssertEqual(Step.keys(bundle: true), Step.all)
        XCTAssertEqual(Step.keys(bundle: false), Step.all.filter { $0 != Step.from && $0 != Step.mappingModel })
    }
}
