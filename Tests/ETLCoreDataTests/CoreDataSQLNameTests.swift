import XCTest
import ETLStore
@testable import ETLCoreData

/// `CoreDataLayout.sqlName` tells plain names byte by byte; it answers as the test by
/// Character did (ASCII letters, digits and `_`, no digit first).
final class CoreDataSQLNameTests: XCTestCase {
    private func byCharacter(_ name: String) -> String {
        let plain = name.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? name : Database.quote(name)
    }

    func testPlainNamesStayAndOthersAreQuoted() {
        XCTAssertEqual(CoreDataLayout.sqlName("ZBOOK"), "ZBOOK")
        XCTAssertEqual(CoreDataLayout.sqlName("_z9"), "_z9")
        XCTAssertEqual(CoreDataLayout.sqlName("9z"), "\"9z\"")
        XCTAssertEqual(CoreDataLayout.sqlName(""), "\"\"")
        XCTAssertEqual(CoreDataLayout.sqlName("Zé"), "\"Zé\"")
        XCTAssertEqual(CoreDataLayout.sqlName("a b"), "\"a b\"")
    }

    func testEveryNameIsToldAsCharactersTellIt() {
        var generator = SplitMix64(seed: 44)
        let pieces = ["a", "Z", "_", "0", "9", "@", "[", "`", "{", "\u{7f}", " ", "\"", "é", "\u{301}", "٣", "Ⅻ", "\r\n", "ß", "🙂"]
        for _ in 0..<2000 {
            let name = (0..<generator.below(5)).map { _ in pieces[generator.below(pieces.count)] }.joined()
            XCTAssertEqual(CoreDataLayout.sqlName(name), byCharacter(name), name)
        }
    }
}
