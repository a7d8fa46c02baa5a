import XCTest
import Foundation
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// Predicates and expressions of a mapping model read in one pass and to a bounded depth.
final class HostileMappingModelTests: XCTestCase {
    func testNegationsAreWrappedAsBefore() throws {
        XCTAssertEqual(try PredicateTranslation.filter("NOT NOT a < 1 AND b == 2"), "!!($source.a < 1) && $source.b == 2")
        XCTAssertEqual(try PredicateTranslation.filter("(NOT a < 1) OR NOT (b == 2)"), "!($source.a < 1) || !($source.b == 2)")
        XCTAssertEqual(try PredicateTranslation.filter("NOT a < (1) AND (NOT b == 2 OR c == 3)"),
                       "!($source.a < 1) && (!($source.b == 2) || $source.c == 3)")
        XCTAssertEqual(try PredicateTranslation.filter("NOT a == nil"), "!($source.a == null)")
    }

    /// 20,000 NOTs took 21 s and 3 GB (each negation re-scanned the rest); 100,000 died.
    func testTwentyThousandNotsAreRefusedAsTooDeep() throws {
        for count in [65, 20_000, 100_000] {
            let predicate = String(repeating: "NOT ", count: count) + "a == 1"
            let error = errorText { try PredicateTranslation.filter(predicate) as Any }
            XCTAssertEqual(error, "parentheses and NOTs nested deeper than 64")
        }
        let parentheses = String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000)
        XCTAssertEqual(errorText { try PredicateTranslation.filter(parentheses) as Any }, "parentheses and NOTs nested deeper than 64")
        // Many at one level are not deep.
        let flat = Array(repeating: "NOT a == 1", count: 2_000).joined(separator: " AND ")
        XCTAssertEqual(try PredicateTranslation.filter(flat)?.components(separatedBy: "!(").count, 2_001)
    }

    /// Words that make no expression are refused at import, naming the word, rather than
    /// translated into text that the plan fails to parse.
    func testAPredicateThatMakesNoExpressionNamesTheWord() throws {
        XCTAssertTrue(errorText { try PredicateTranslation.filter("a == == 1") as Any }.hasPrefix("'==' has no pipeline equivalent"))
        XCTAssertTrue(errorText { try PredicateTranslation.filter("a == 1 b") as Any }.hasPrefix("'$source.b' has no pipeline equivalent"))
        XCTAssertTrue(errorText { try PredicateTranslation.filter("(a == 1") as Any }.hasPrefix("'end of the predicate' has no pipeline equivalent"))
        XCTAssertTrue(errorText { try PredicateTranslation.filter("a == 1.2.3") as Any }.hasPrefix("'1.2.3' has no pipeline equivalent"))
        XCTAssertEqual(try PredicateTranslation.filter("a == -1.5 OR (b < 2)"), "$source.a == -1.5 || $source.b < 2")
    }

    func testAValueExpressionOfNestedFunctionsIsRefusedAsTooDeep() throws {
        let deep = String(repeating: "FUNCTION(", count: 100_000) + "$source.a" + String(repeating: ", \"uppercaseString\")", count: 100_000)
        let error = errorText { try ExpressionFormat.parse(deep) }
        XCTAssertTrue(error.hasPrefix("FUNCTION calls nested deeper than 64"), error)
        let fine = String(repeating: "FUNCTION(", count: 10) + "$source.a" + String(repeating: ", \"uppercaseString\")", count: 10)
        XCTAssertEqual("\(try ExpressionFormat.parse(fine))".components(separatedBy: "uppercaseString").count, 11)
    }
}

extension MappingModelImportTests {
    func testAFilterOfTwentyThousandNotsIsRefusedNamingFileAndMapping() throws {
        let folder = try personMapping(filter: String(repeating: "NOT ", count: 20_000) + "firstName == nil")
        let error = errorText { try importPerson(folder) }
        XCTAssertTrue(error.hasPrefix(folder.appendingPathComponent("xcmapping.xml").path + ":"), error)
        XCTAssertTrue(error.contains("entity mapping PersonToPerson") && error.contains("nested deeper than 64"), error)
        XCTAssertLessThan(error.utf8.count, 1_000, "the filter quoted by its start")
    }
}

extension HostileMappingModelTests {
    /// FoundationXML trapped on an attribute name that is not UTF-8 (found by the
    /// MappingModelFuzzer): the file is refused first, naming the place.
    func testXMLThatIsNotUTF8IsRefusedNamingThePlace() throws {
        let folder = try TemporaryFolder()
        let mapping = folder.url.appendingPathComponent("Bad.xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        let xml = Array("<?xml version=\"1.0\"?>\n<database>\n<object type=\"XDDEVMAPPINGMODEL\" id=\"z1\">\n  <relationship ".utf8)
            + [0xEE] + Array("ame=\"entitymappings\" idrefs=\"\"></relationship></object></database>\n".utf8)
        try Data(xml).write(to: mapping.appendingPathComponent("xcmapping.xml"))
        let error = errorText { try XCMappingModel.load(path: mapping.path) }
        XCTAssertEqual(error, mapping.appendingPathComponent("xcmapping.xml").path + ":4:17: /: not UTF-8 at byte 91 (Xcode writes its XML in UTF-8)")
        let bundle = folder.url.appendingPathComponent("Bad.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("v1", "<?xml version=\"1.0\"?>\n<model><entity name=\"A\u{1}\"/></model>")])
        var contents = try Data(contentsOf: bundle.appendingPathComponent("v1.xcdatamodel/contents"))
        contents[contents.firstIndex(of: 0x01)!] = 0xFF
        try contents.write(to: bundle.appendingPathComponent("v1.xcdatamodel/contents"))
        XCTAssertTrue(errorText { try ModelBundle.load(path: bundle.path) }.contains("not UTF-8 at byte"))
    }

    /// A processing instruction without data (`<?name?>`, found by the MappingModelFuzzer):
    /// FoundationXML's parser crashed reading its null data. Refused before it parses.
    func testAProcessingInstructionIsRefusedNamingThePlace() throws {
        let folder = try TemporaryFolder()
        let mapping = folder.url.appendingPathComponent("PI.xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?>\n<?sourceexpr?>\n<database></database>\n".utf8).write(to: mapping.appendingPathComponent("xcmapping.xml"))
        let error = errorText { try XCMappingModel.load(path: mapping.path) }
        XCTAssertEqual(error, mapping.appendingPathComponent("xcmapping.xml").path
            + ":2:1: /: a processing instruction at byte 22: Xcode writes none but the XML declaration, and this XML reader cannot read one")
        let bundle = folder.url.appendingPathComponent("PI.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("v1", "<?xml version=\"1.0\"?>\n<model><?target?><entity name=\"A\"/></model>")])
        XCTAssertTrue(errorText { try ModelBundle.load(path: bundle.path) }.contains("a processing instruction at byte"))
    }
}
