import XCTest
import Foundation
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

/// Binary property lists and keyed archives built to hurt a reader: each ends in an error
/// naming the object, or in the right value, at once and in little memory.
final class HostilePropertyListTests: XCTestCase {
    func testAUIDBeyondInt64IsAnErrorNamingTheObject() throws {
        var plist = PropertyListBuilder()
        let uid = plist.uid(1 << 63)
        let top = plist.array([uid])
        let error = errorText { try BinaryPropertyList.read(plist.bytes(top: top)) }
        XCTAssertTrue(error.contains("object \(uid): UID 9223372036854775808"), error)
    }

    func testATrailerOffsetAtTheTopOfUInt64IsAnError() throws {
        var plist = PropertyListBuilder()
        let top = plist.string("x")
        for table in [UInt64.max, UInt64.max - 7, UInt64(Int64.max)] {
            let error = errorText { try BinaryPropertyList.read(plist.bytes(top: top, offsetTable: table)) }
            XCTAssertTrue(error.contains("offset table at byte \(table)") && error.contains("outside the file"), error)
        }
    }

    func testLengthsAndReferenceCountsAtTheTopOfInt64AreErrors() throws {
        var plist = PropertyListBuilder()
        let string = plist.add([0x5F, 0x13] + PropertyListBuilder.bigEndian(UInt64(Int64.max), 8))
        let array = plist.add([0xAF, 0x13] + PropertyListBuilder.bigEndian(UInt64.max, 8))
        for top in [string, array] {
            let error = errorText { try BinaryPropertyList.read(plist.bytes(top: top)) }
            XCTAssertTrue(error.contains("object \(top): length") && error.contains("larger than the file"), error)
        }
    }

    /// 999 references to an array of 999 references to one 10 KB string: 12 KB of file,
    /// 10 GB written out as a tree.
    func testSharedReferencesAreCountedOnceAndTheirExpansionIsCapped() throws {
        var plist = PropertyListBuilder()
        let text = plist.string(String(repeating: "x", count: 10_000))
        let inner = plist.array(Array(repeating: text, count: 999))
        let outer = plist.array(Array(repeating: inner, count: 999))
        let bytes = plist.bytes(top: outer)
        XCTAssertLessThan(bytes.count, 20_000)
        let error = errorText { try BinaryPropertyList.read(bytes) }
        XCTAssertTrue(error.contains("object \(outer) expands to more than"), error)

        // Ten by ten is well within the cap: the value comes back whole.
        var small = PropertyListBuilder()
        let smallText = small.string(String(repeating: "y", count: 10_000))
        let smallInner = small.array(Array(repeating: smallText, count: 10))
        let smallOuter = small.array(Array(repeating: smallInner, count: 10))
        let value = try BinaryPropertyList.read(small.bytes(top: smallOuter))
        let row = PropertyListValue.array(Array(repeating: .string(String(repeating: "y", count: 10_000)), count: 10))
        XCTAssertEqual(value, .array(Array(repeating: row, count: 10)))
    }

    func testAKeyedArchiveOfSharedUIDsIsCapped() throws {
        var plist = PropertyListBuilder()
        let null = plist.string("$null")
        let arrayClass = plist.dictionary([(plist.string("$classname"), plist.string("NSArray"))])
        let text = plist.string(String(repeating: "x", count: 10_000))
        // $objects: 0 $null, 1 the class, 2 the text, 3 inner NSArray, 4 outer NSArray.
        let classKey = plist.string("$class"), objectsKey = plist.string("NS.objects")
        func nsArray(_ element: UInt64) -> Int {
            let uids = (0..<999).map { _ in plist.uid(element, size: 1) }
            return plist.dictionary([(classKey, plist.uid(1, size: 1)), (objectsKey, plist.array(uids))])
        }
        let inner = nsArray(2), outer = nsArray(3)
        let bytes = plist.keyedArchive(objects: [null, arrayClass, text, inner, outer], root: 4)
        let error = errorText { try KeyedArchive.root(of: bytes) }
        XCTAssertTrue(error.contains("$objects[4]: NSArray expands to more than"), error)
    }

    func testAnNSStringThatRefersToItselfIsAnErrorNotAStackOverflow() throws {
        var plist = PropertyListBuilder()
        let null = plist.string("$null")
        let stringClass = plist.dictionary([(plist.string("$classname"), plist.string("NSString"))])
        let selfString = plist.dictionary([(plist.string("$class"), plist.uid(1, size: 1)), (plist.string("NS.string"), plist.uid(2, size: 1))])
        let bytes = plist.keyedArchive(objects: [null, stringClass, selfString], root: 2)
        let error = errorText { try KeyedArchive.root(of: bytes) }
        XCTAssertTrue(error.contains("$objects[2] contains itself"), error)
    }

    /// The design model's graph is followed by reference, not decoded as a tree: its own
    /// reading of text stops at a cycle too.
    func testAnArchivedDesignModelWhoseNSStringRefersToItselfIsAnError() throws {
        var plist = PropertyListBuilder()
        let null = plist.string("$null")
        // 1 the root, 2 the package, 3 its classes (an NSDictionary keyed by 4), 4 an NSString of itself.
        let root = plist.dictionary([(plist.string("_xd_rootPackage"), plist.uid(2, size: 1))])
        let package = plist.dictionary([(plist.string("XDBucketForClassesstorage"), plist.uid(3, size: 1))])
        let classes = plist.dictionary([(plist.string("NS.keys"), plist.array([plist.uid(4, size: 1)])),
                                        (plist.string("NS.objects"), plist.array([plist.uid(0, size: 1)]))])
        let selfString = plist.dictionary([(plist.string("NS.string"), plist.uid(4, size: 1))])
        let bytes = plist.keyedArchive(objects: [null, root, package, classes, selfString], root: 1)
        let error = errorText { try ArchivedDesignModel.model(archive: bytes, version: "V") }
        XCTAssertTrue(error.contains("$objects[4] is an NS.string that refers to NS.strings"), error)
    }

    func testNestingDeeperThanTheCapIsAnError() throws {
        var plist = PropertyListBuilder()
        var top = plist.string("deep")
        for _ in 0..<10_000 { top = plist.array([top]) }
        let error = errorText { try BinaryPropertyList.read(plist.bytes(top: top)) }
        XCTAssertTrue(error.contains("nested deeper than \(BinaryPropertyList.maximumDepth)"), error)
    }
}

extension MappingModelImportTests {
    /// The mapping model's error names its file and the property whose archive is bad.
    func testAHostileValueExpressionArchiveIsRefusedNamingFileAndProperty() throws {
        var plist = PropertyListBuilder()
        let uid = plist.uid(UInt64.max)
        let top = plist.array([uid])
        let folder = try personMapping(archived: ["firstName": plist.bytes(top: top)])
        let error = errorText { try XCMappingModel.load(path: folder.path) }
        XCTAssertTrue(error.hasPrefix(folder.appendingPathComponent("xcmapping.xml").path + ":"), error)
        XCTAssertTrue(error.contains("entity mapping PersonToPerson, attribute firstName"), error)
        XCTAssertTrue(error.contains("valueexpressiondata") && error.contains("UID 18446744073709551615"), error)
    }
}

/// What `body` throws, as text; a failure when it throws nothing.
func errorText(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Any) -> String {
    do {
        let value = try body()
        XCTFail("expected an error, got \(value)", file: file, line: line)
        return ""
    } catch {
        return "\(error)"
    }
}
