import XCTest
import ETLTestSupport
import Foundation
@testable import ETLEngine
import ETLExpression

/// A store's header is hashed in place (`FNV1a.add(Data)`); the fingerprint must be the one
/// byte-by-byte hashing gives, or every checkpoint written before would no longer match its
/// source on resume.
final class FNV1aTests: XCTestCase {
    func testDataHashesAsItsBytesOneByOne() {
        for bytes in [[], Array("hello".utf8), (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }] as [[UInt8]] {
            var inPlace = FNV1a(), oneByOne = FNV1a()
            inPlace.add(Data(bytes))
            oneByOne.add(bytes)
            XCTAssertEqual(inPlace.value, oneByOne.value, "\(bytes.count) bytes")
        }
        // FNV-1a 64 of "hello", as published.
        var hello = FNV1a()
        hello.add(Data("hello".utf8))
        XCTAssertEqual(hello.hex, "a430d84680aabd0b")
    }
}
