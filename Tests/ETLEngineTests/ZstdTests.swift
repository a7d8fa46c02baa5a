import XCTest
import ETLTestSupport
import ETLEngine
import ETLExpression
import ETL

final class ZstdTests: XCTestCase {
    func data(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        // Compressible but not trivial: small alphabet.
        return (0..<count).map { _ in UInt8(97 + random.below(6)) }
    }

    func testRoundTripOfSmallAndLargeInputs() throws {
        for count in [0, 1, 1000, 3_000_000] {
            let input = data(count, seed: UInt64(count))
            let frame = try Zstd.compress(input)
            XCTAssertEqual(try Zstd.decompress(frame), input, "size \(count)")
            if count > 1000 { XCTAssertLessThan(frame.count, count / 2) }
        }
    }

    func testAFlippedByteIsCaught() throws {
        let input = data(100_000, seed: 1)
        let frame = try Zstd.compress(input)
        var caught = 0
        for position in stride(from: 4, to: frame.count, by: max(1, frame.count / 40)) {
            var damaged = frame
            damaged[position] ^= 0x20
            if let back = try? Zstd.decompress(damaged) {
                XCTAssertNotEqual(back, input, "a damaged frame decoded to the original")
            } else {
                caught += 1
            }
        }
        XCTAssertGreaterThan(caught, 30, "the checksum should catch flipped bytes")
    }

    func testTruncatedAndEmptyFramesAreRefused() throws {
        let frame = try Zstd.compress(data(50_000, seed: 2))
        XCTAssertThrowsError(try Zstd.decompress(Array(frame.prefix(frame.count - 3))))
        XCTAssertThrowsError(try Zstd.decompress(Array(frame.prefix(frame.count / 2))))
        XCTAssertThrowsError(try Zstd.decompress([]))
        XCTAssertThrowsError(try Zstd.decompress(Array("not zstd at all".utf8)))
    }

    func testOutputLimit() throws {
        let frame = try Zstd.compress([UInt8](repeating: 0, count: 2_000_000))
        XCTAssertThrowsError(try Zstd.decompress(frame, limit: 1_000_000))
    }
}

extension ZstdTests {
    /// Under a memory limit zstd answers "Allocation error": that failure says memory ran
    /// out (the engine then keeps the work and says to resume with fewer workers), and a
    /// damaged frame does not.
    func testAnAllocationFailureIsToldApartFromBadData() throws {
        let allocation = Zstd.Failure(code: -64)  // ZSTD_error_memory_allocation, as zstd returns it
        XCTAssertTrue(allocation.isOutOfMemory)
        XCTAssertEqual(allocation.description, "zstd: Allocation error : not enough memory")
        var frame = try Zstd.compress(Array("state".utf8))
        frame[frame.count - 1] ^= 0xFF
        XCTAssertThrowsError(try Zstd.decompress(frame)) { error in
            XCTAssertEqual((error as? Zstd.Failure)?.isOutOfMemory, false, "\(error)")
        }
        XCTAssertTrue(MigrationError.outOfMemory(what: "in zstd").description.contains("--workers 1"))
    }
}
