import XCTest
@testable import ETLStore
import ETLTestSupport

/// `isValidUTF8` says what the standard library's validation says of every byte sequence
/// (it replaces it on the read path, where that one was slow): edge cases of each rule, and
/// random sequences biased towards the bytes that start and continue sequences.
final class UTF8ValidationTests: XCTestCase {
    func reference(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) != nil }
    }

    func check(_ bytes: [UInt8], _ hint: String = "", file: StaticString = #filePath, line: UInt = #line) {
        bytes.withUnsafeBufferPointer { buffer in
            XCTAssertEqual(buffer.isValidUTF8, reference(bytes), "\(bytes.map { String($0, radix: 16) }) \(hint)", file: file, line: line)
            XCTAssertEqual(buffer.utf8String, String(validating: buffer, as: UTF8.self), file: file, line: line)
        }
    }

    func testEveryRuleOfUTF8() {
        let cases: [[UInt8]] = [
            [], Array("plain ASCII, longer than eight bytes".utf8), Array("é😀中".utf8), Array("aaaaaaaé".utf8), Array("aaaaaaaaé".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xC2], [0xC2, 0x41],
            [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBD], [0xE1, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xF1, 0x80, 0x80], [0xFF], [0x80], [0xBF, 0x41], [0x41, 0, 0x42], Array(repeating: 0x61, count: 16) + [0xE2, 0x82, 0xAC],
        ]
        for bytes in cases { check(bytes) }
    }

    func testRandomSequencesAgreeWithTheStandardLibrary() {
        let seed = TestSeed(fixedFor: "UTF8ValidationTests.random")
        var random = SplitMix64(seed: seed.value)
        let alphabet: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF]
        for _ in 0..<50_000 {
            let count = Int.random(in: 0...12, using: &random)
            check((0..<count).map { _ in Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random) },
                  seed.replayHint)
        }
    }
}
