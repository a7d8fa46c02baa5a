import XCTest
import ArgumentParser
@testable import ETLCommandLine

/// `etl --help` as an 80-column terminal shows it.
final class HelpTests: XCTestCase {
    /// The exit codes: in order, each on its own line, none cut mid-sentence by the wrapping.
    func testTheExitCodesAreListedInOrderAndNotWrapped() throws {
        let help = ETLCommand.helpMessage(columns: 80).components(separatedBy: "\n")
        let start = try XCTUnwrap(help.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "Exit codes:" })
        let block = help[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let codes = block.compactMap { line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.first?.isNumber == true else { return nil }
            return text.components(separatedBy: "  ").first
        }
        XCTAssertEqual(codes, ["0", "1", "2", "3", "130, 143"], block.joined(separator: "\n"))
        let indent = try XCTUnwrap(block.first?.prefix { $0 == " " }.count)
        for line in block {
            XCTAssertLessThanOrEqual(line.count, 80, line)
            let text = line.dropFirst(indent)
            // A code, or the continuation of its text under that text's first column.
            XCTAssertTrue(text.first?.isNumber == true || text.hasPrefix(String(repeating: " ", count: 10)), "wrapped: \(line)")
        }
    }
}
