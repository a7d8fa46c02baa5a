import XCTest
import Foundation
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

/// A store's `Z_PLIST` is untrusted: a hostile one is an error naming it, a big but
/// legitimate one is carried over whole.
final class StoreMetadataPlistTests: XCTestCase {
    /// 70,000 elements need 4-byte references (the writer had 2 at most, and trapped).
    func testAnAppKeyOfA70000ElementArrayIsCarriedOverWhole() throws {
        let elements = (0..<70_000).map { "item \($0)" }
        let big = String(repeating: "z", count: 300_000)
        let plist: [String: Any] = ["NSStoreType": "SQLite", "NSStoreModelVersionIdentifiers": [""],
                                    "com.example.items": elements, "com.example.big": big]
        let decoded = try CoreDataMetadata.decode(plist: PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
        let encoded = try decoded.encodePlist()
        let again = try XCTUnwrap(PropertyListSerialization.propertyList(from: encoded, options: [], format: nil) as? [String: Any])
        XCTAssertEqual(again["com.example.items"] as? [String], elements)
        XCTAssertEqual(again["com.example.big"] as? String, big)
        // The bounded reader reads what the writer wrote too.
        guard case .dictionary(let read) = try BinaryPropertyList.read(Array(encoded)), case .array(let items)? = read["com.example.items"] else {
            return XCTFail("not a dictionary with the array")
        }
        XCTAssertEqual(items.count, 70_000)
        XCTAssertEqual(items.last, .string("item 69999"))
    }

    /// 999 references to an array of 999 references to one 10 KB string, under an app key:
    /// Foundation's reader would expand it to 10 GB.
    func testAZPlistOfSharedReferencesIsAnErrorNamingIt() throws {
        var plist = PropertyListBuilder()
        let text = plist.string(String(repeating: "x", count: 10_000))
        let inner = plist.array(Array(repeating: text, count: 999))
        let outer = plist.array(Array(repeating: inner, count: 999))
        let top = plist.dictionary([(plist.string("NSStoreType"), plist.string("SQLite")), (plist.string("com.example.bomb"), outer)])
        let error = errorText { try CoreDataMetadata.decode(plist: Data(plist.bytes(top: top))) }
        XCTAssertTrue(error.contains("Z_METADATA.Z_PLIST is not a readable binary property list: object \(outer) expands to more than"), error)
    }

    /// An app key holding what no property list API writes (a keyed archiver's UID) fails
    /// the store by name instead of losing every app key in silence.
    func testAnAppKeyOfAUIDIsAnErrorNamingIt() throws {
        var plist = PropertyListBuilder()
        let top = plist.dictionary([(plist.string("NSStoreType"), plist.string("SQLite")), (plist.string("com.example.uid"), plist.uid(3, size: 1))])
        let error = errorText { try CoreDataMetadata.decode(plist: Data(plist.bytes(top: top))) }
        XCTAssertTrue(error.contains("Z_METADATA.Z_PLIST holds a keyed archiver's reference (UID 3)"), error)
    }

    /// A set (marker 0xC) of dictionaries: Foundation's reader crashed bridging it (found by
    /// the PropertyListFuzzer). Read as the bounded reader reads it: an array.
    func testASetOfDictionariesIsReadAsAnArray() throws {
        var plist = PropertyListBuilder()
        let inner = plist.dictionary([(plist.string("k"), plist.string("v"))])
        let set = plist.add([0xC2] + PropertyListBuilder.bigEndian(UInt64(inner), 2) + PropertyListBuilder.bigEndian(UInt64(inner), 2))
        let top = plist.dictionary([(plist.string("NSStoreType"), plist.string("SQLite")), (plist.string("com.example.set"), set)])
        let metadata = try CoreDataMetadata.decode(plist: Data(plist.bytes(top: top)))
        XCTAssertEqual(metadata.otherKeyNames, ["com.example.set"])
        let again = try XCTUnwrap(PropertyListSerialization.propertyList(from: metadata.encodePlist(), options: [], format: nil) as? [String: Any])
        XCTAssertEqual((again["com.example.set"] as? [[String: String]]), [["k": "v"], ["k": "v"]])
    }

    /// Core Data writes Z_PLIST as a binary property list; any other form went to
    /// Foundation's reader, which crashed bridging an XML plist's set of dictionaries (found
    /// by the PropertyListFuzzer). Refused, naming what it starts with.
    func testAZPlistThatIsNotBinaryIsRefused() throws {
        let xml = Data(#"<?xml version="1.0"?><plist version="1.0"><dict><key>NSStoreType</key><string>SQLite</string></dict></plist>"#.utf8)
        let error = errorText { try CoreDataMetadata.decode(plist: xml) }
        XCTAssertTrue(error.contains("Z_METADATA.Z_PLIST is not a binary property list (Core Data writes bplist00; its first bytes are 3c3f786d6c207665)"), error)
    }
}
