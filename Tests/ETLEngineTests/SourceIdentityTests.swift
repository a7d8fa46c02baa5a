import XCTest
import Foundation
@testable import ETLEngine
import ETLExpression

/// A checkpoint's source identity: what SQLite changes on every write, named when it
/// changed; a checkpoint of an etl that did not record it is not continued.
final class SourceIdentityTests: XCTestCase {
    func identity(_ source: String) throws -> RunIdentity {
        try JSONDecoder().decode(RunIdentity.self, from: Data("""
            { "toolVersion": "0.5.0", "pipeline": "p", "pipelineFile": "books.json", "models": ["v1", "v2"], "destination": "out.sqlite",
              "pushdown": true, "source": \(source) }
            """.utf8))
    }

    let now = #"{ "path": "s.sqlite", "size": 8192, "modified": 1.5, "header": "ab", "changeCounter": 7, "schemaCookie": 3 }"#

    func testAnOldCheckpointWithoutTheCountersIsRefusedWithWhatToDo() throws {
        let old = try identity(#"{ "path": "s.sqlite", "size": 8192, "modified": 1.5, "header": "ab" }"#)
        let differences = old.differences(from: try identity(now))
        XCTAssertEqual(differences.count, 1)
        XCTAssertTrue(differences[0].contains("did not record what SQLite changes on every write"), "\(differences)")
        XCTAssertTrue(differences[0].contains("--restart"), "\(differences)")
    }

    func testEachChangeIsNamed() throws {
        XCTAssertEqual(try identity(now).differences(from: try identity(now)), [])
        let changed = try identity(#"{ "path": "s.sqlite", "size": 8192, "modified": 1.5, "header": "cd", "changeCounter": 8, "schemaCookie": 3, "walSize": 4152, "walSalts": 9, "walCheckpoints": 1, "walFrames": 1 }"#)
        let message = try identity(now).differences(from: changed).joined()
        for part in ["its header's change counter (7 → 8)", "its -wal's size (none → 4152 bytes)", "its -wal's salts"] {
            XCTAssertTrue(message.contains(part), message)
        }
        XCTAssertFalse(message.contains("schema cookie"), message)
    }
}
