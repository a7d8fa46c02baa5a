import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLPipeline

/// A checkpoint written by hand (`CheckpointJSON`) is the bytes `JSONEncoder.checkpoint`
/// wrote: an etl resumes the checkpoints of earlier ones, and they of this one.
final class CheckpointJSONTests: XCTestCase {
    private func counters(_ name: String, seconds: Double) -> MappingCounters {
        var counters = MappingCounters(step: "v1 → v2", mapping: name, source: "Book/s", destination: "Book\"2\"")
        counters.read = 50
        counters.filtered = 1
        counters.associated = 49
        counters.written = 48
        counters.rejected = 2
        counters.nullsOnPurpose = 3
        counters.dropped = 4
        counters.related = 5
        counters.seconds = seconds
        return counters
    }

    private func checkpoint(_ progress: Checkpoint.Progress, wal: Bool, seconds: Double) -> Checkpoint {
        var source = SourceIdentity(path: "/archive/a b/store.sqlite", size: 8192, modified: 1_765_067_016.4832649,
                                    header: "0123abcd", walSize: wal ? 4152 : nil)
        source.changeCounter = 7
        source.schemaCookie = 3
        if wal {
            source.walSalts = UInt64.max - 5
            source.walCheckpoints = 0
            source.walFrames = 1
        }
        let identity = RunIdentity(toolVersion: "1.2.0", pipeline: "fnv", pipelineFile: "pipelines/books.json", source: source,
                                   models: ["1", "BookmarksModel 6"], destination: "/out/store.sqlite", pushdown: wal)
        return Checkpoint(identity: identity,
                          position: Checkpoint.Position(step: 1, stage: .relate, mapping: MappingID(2), progress: progress, done: 3, total: 9),
                          steps: ["v1 → v2", "v2\\v3\n"], mappings: ["Book", "Author"],
                          finished: [counters("Book", seconds: seconds)], counters: [counters("Author", seconds: 0), counters("Tag", seconds: 1e-7)],
                          nextKeys: ["ZBOOK": 51, "Author": -1, "author": Int64.max],
                          started: Date(timeIntervalSince1970: 1_765_067_016.25), written: Date(timeIntervalSince1970: seconds * 1e9))
    }

    func testCheckpointsAreWrittenAsJSONEncoderWritesThem() throws {
        XCTAssertEqual(Mirror(reflecting: checkpoint(.nothingYet, wal: true, seconds: 0)).children.count, 11,
                       "a field was added: write it in CheckpointJSON, then count it here")
        XCTAssertEqual(Mirror(reflecting: checkpoint(.nothingYet, wal: true, seconds: 0).identity.source).children.count, 10,
                       "a field was added: write it in CheckpointJSON, then count it here")
        XCTAssertEqual(Mirror(reflecting: counters("x", seconds: 0)).children.count, 13,
                       "a field was added: write it in CheckpointJSON, then count it here")
        let progresses: [Checkpoint.Progress] = [
            .nothingYet, .loaded(lastSourceKey: -4), .statementsDone(2), .linked(target: TargetID(1), destination: 2, source: 3, item: Int64.min),
        ]
        for (index, progress) in progresses.enumerated() {
            for wal in [false, true] {
                let written = checkpoint(progress, wal: wal, seconds: [0, 0.1 + 0.2, 12.5, 1.0 / 3][index])
                let bytes = try XCTUnwrap(CheckpointJSON.bytes(written))
                XCTAssertEqual(bytes, Array(try JSONEncoder.checkpoint.encode(written)), String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    func testACheckpointWithALessonIsLeftToJSONEncoder() {
        var written = checkpoint(.nothingYet, wal: false, seconds: 0)
        written.lessons = StepLessons(rowByRow: .pushdownOff)
        XCTAssertNil(CheckpointJSON.bytes(written))
        written = checkpoint(.nothingYet, wal: false, seconds: .infinity)
        XCTAssertNil(CheckpointJSON.bytes(written))
    }
}
