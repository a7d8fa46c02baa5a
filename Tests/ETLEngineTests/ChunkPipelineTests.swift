import XCTest
import ETLTestSupport
import Foundation
@testable import ETLEngine
import ETLExpression

final class ChunkPipelineTests: XCTestCase {
    /// Counts chunks between production and the end of consumption.
    final class Gauge: @unchecked Sendable {
        let lock = NSLock()
        var current = 0
        var peak = 0
        func add(_ n: Int) { lock.lock(); current += n; peak = max(peak, current); lock.unlock() }
    }

    func testConsumesInProductionOrderWithinTheBound() throws {
        let gauge = Gauge()
        var next = 0
        var consumed: [Int] = []
        try ChunkPipeline<Int, Int>.run(
            workers: 4, maxInFlight: 6,
            produce: {
                guard next < 200 else { return nil }
                defer { next += 1 }
                gauge.add(1)
                return next
            },
            transform: { n in
                // Uneven work, so workers finish out of order.
                usleep(UInt32((n * 7919) % 5) * 200)
                return n * 10
            },
            consume: { value in
                consumed.append(value)
                gauge.add(-1)
            })
        XCTAssertEqual(consumed, (0..<200).map { $0 * 10 })
        XCTAssertLessThanOrEqual(gauge.peak, 6, "more chunks in flight than allowed")
        XCTAssertGreaterThan(gauge.peak, 1, "the workers never ran side by side")
    }

    struct Boom: Error {}

    func testAnErrorInTransformStopsEverything() {
        var produced = 0
        XCTAssertThrowsError(try ChunkPipeline<Int, Int>.run(
            workers: 3, maxInFlight: 5,
            produce: {
                produced += 1
                return produced <= 10_000 ? produced : nil
            },
            transform: { n in
                if n == 50 { throw Boom() }
                return n
            },
            consume: { _ in })) { error in
            XCTAssertTrue(error is Boom)
        }
        XCTAssertLessThan(produced, 100, "the producer went on after the failure")
    }

    func testAnErrorInConsumeStopsEverything() {
        var produced = 0
        var consumed = 0
        XCTAssertThrowsError(try ChunkPipeline<Int, Int>.run(
            workers: 2, maxInFlight: 4,
            produce: {
                produced += 1
                return produced <= 10_000 ? produced : nil
            },
            transform: { $0 },
            consume: { n in
                consumed += 1
                if n == 20 { throw Boom() }
            })) { error in
            XCTAssertTrue(error is Boom)
        }
        XCTAssertEqual(consumed, 20)
        XCTAssertLessThanOrEqual(produced, 20 + 4 + 1)
    }

    func testAnErrorInProduceIsReported() {
        var produced = 0
        var consumed: [Int] = []
        XCTAssertThrowsError(try ChunkPipeline<Int, Int>.run(
            workers: 2, maxInFlight: 3,
            produce: {
                produced += 1
                if produced == 5 { throw Boom() }
                return produced
            },
            transform: { $0 },
            consume: { consumed.append($0) })) { error in
            XCTAssertTrue(error is Boom)
        }
        // What was consumed before the failure is a prefix of the order, never past it.
        XCTAssertLessThanOrEqual(consumed.count, 4)
        XCTAssertEqual(consumed, Array((0..<consumed.count).map { $0 + 1 }))
    }

    func testNothingToProduce() throws {
        var consumed = 0
        try ChunkPipeline<Int, Int>.run(workers: 2, maxInFlight: 2, produce: { nil }, transform: { $0 }, consume: { _ in consumed += 1 })
        XCTAssertEqual(consumed, 0)
    }
}
