import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL

/// Given generated stores (plain, and Core Data's layout) whose columns hold values of every
/// storage class — NULL, INTEGER, REAL, TEXT, BLOB — and edge values (empty, white space,
/// huge, NaN/±Inf as text, invalid UTF-8, ISO and other dates, numbers counted from 1970
/// and from 2001), when they are migrated pushed down and row by row, fused and apart, with
/// and without a policy, then every value arrives exactly or converted as docs/pipeline.md's
/// table says, or its row is in the reject file with the value as stored, or (with
/// `"unreadable": "null"`) it is null and counted as nulled. Nothing else.
///
/// The expectation (`expected`) is this file's own reading of the table, applied to the
/// values as the source store holds them (SQLite's column affinity changes some on insert).
/// Seeded: `ETL_TEST_SEED` replays a failure.
final class ReadingRuleDifferentialTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// The attributes of the generated entity: name and type.
    static let attributes: [(name: String, type: String)] = [
        ("i", "integer64"), ("d", "double"), ("b", "boolean"), ("t", "date"), ("s", "string"), ("x", "binary"),
    ]

    /// Values of every storage class, edge values among them. Invalid UTF-8 text is made
    /// by a CAST in SQL (`invalidText`).
    static let edgeValues: [SQLValue] = [
        .null, .integer(0), .integer(1), .integer(2), .integer(7), .integer(-7), .integer(42), .integer(.max),
        .integer(9_007_199_254_740_993), .integer(1 << 60),
        .real(0), .real(1), .real(3), .real(1.5), .real(-0.25), .real(1e300), .real(.infinity), .real(-.infinity),
        .real(568_375_200), .real(1_546_682_400),
        .text(""), .text(" "), .text("12"), .text(" 12"), .text("012"), .text("12.5"), .text("12.50"), .text("abc"),
        .text("NaN"), .text("inf"), .text("-Infinity"), .text("1e300"), .text("2019-01-05T10:00:00Z"), .text("2019-01-05"),
        .text("05/01/2019"), .text("2024-02-30"), .text("0"), .text("1"), .text("yes"), .text(String(repeating: "é", count: 300)),
        .blob([]), .blob([0x00]), .blob([0xDE, 0xAD, 0xBE, 0xEF]), .blob(Array("hello".utf8)), .blob(Array("12".utf8)),
    ]
    /// Stands for text whose bytes are not UTF-8 (written as CAST(x'FF41' AS TEXT)).
    static let invalidText = SQLValue.blob([0xFF, 0x41, 0xFF])

    /// Seconds since 1970 of the two ISO texts among the edge values.
    static let isoSeconds: [String: Double] = ["2019-01-05T10:00:00Z": 1_546_682_400, "2019-01-05": 1_546_646_400]

    enum Expected: Equatable {
        case value(SQLValue)
        case unreadable
    }

    /// What a value stored in a column of `type` arrives as in a store of the same layout
    /// (`epoch`: the layout's, as both stores count dates from it), by docs/pipeline.md's table.
    static func expected(_ stored: SQLValue, _ type: String, epoch: Double) -> Expected {
        func printedInteger(_ t: String) -> Int64? { Int64(t).flatMap { String($0) == t ? $0 : nil } }
        func exactDouble(_ i: Int64) -> Double? { Int64(exactly: Double(i)) == i ? Double(i) : nil }
        func printedDouble(_ t: String) -> Double? {
            if let i = printedInteger(t) { return exactDouble(i) }
            guard t.first.map({ $0 == "-" || $0.isNumber }) ?? false, let d = Double(t), d.isFinite, "\(d)" == t else { return nil }
            return d
        }
        if case .null = stored { return .value(.null) }
        switch (type, stored) {
        case ("integer64", .integer): return .value(stored)
        case ("integer64", .real(let r)): return Int64(exactly: r).map { .value(.integer($0)) } ?? .unreadable
        case ("integer64", .text(let t)): return printedInteger(t).map { .value(.integer($0)) } ?? .unreadable
        case ("double", .real): return .value(stored)
        case ("double", .integer(let i)): return exactDouble(i).map { .value(.real($0)) } ?? .unreadable
        case ("double", .text(let t)): return printedDouble(t).map { .value(.real($0)) } ?? .unreadable
        case ("boolean", .integer(let i)) where i == 0 || i == 1: return .value(.integer(i))
        case ("boolean", .real(let r)) where r == 0 || r == 1: return .value(.integer(Int64(r)))
        case ("boolean", .text(let t)) where t == "0" || t == "1": return .value(.integer(Int64(t)!))
        case ("date", .real(let r)): return r.isFinite ? .value(.real(r)) : .unreadable
        case ("date", .integer(let i)): return exactDouble(i).map { .value(.real($0)) } ?? .unreadable
        case ("date", .text(let t)):
            if let seconds = isoSeconds[t] { return .value(.real(seconds - epoch)) }
            return printedDouble(t).map { .value(.real($0)) } ?? .unreadable
        case ("string", .text): return .value(stored)
        case ("string", .integer(let i)): return .value(.text(String(i)))
        case ("string", .real(let r)): return r.isFinite ? .value(.text("\(r)")) : .unreadable
        case ("string", .blob(let b)): return String(validating: b, as: UTF8.self).map { .value(.text($0)) } ?? .unreadable
        case ("binary", .blob): return .value(stored)
        case ("binary", .text(let t)): return .value(.blob(Array(t.utf8)))
        default: return .unreadable
        }
    }

    /// A value as the reject file shows it: text as it is, blobs in hex, numbers printed.
    static func shown(_ value: SQLValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let i): return String(i)
        case .real(let r): return "\(r)"
        case .text(let t): return t
        case .blob(let b): return "x'" + b.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// Numbers compared by value (a NUMERIC column keeps 3.0 as 3).
    static func same(_ a: SQLValue, _ b: SQLValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .real(let y)), (.real(let y), .integer(let x)): return Double(x) == y
        default: return a == b
        }
    }

    // MARK: Plain stores

    func writeModels() throws {
        let attributes = Self.attributes.map { "{ \"name\": \"\($0.name)\", \"type\": \"\($0.type)\" }" }.joined(separator: ", ")
        for version in ["cells-v1", "cells-v2", "cells-v3"] {
            try Data("{ \"version\": \"\(version)\", \"entities\": [ { \"name\": \"Cell\", \"attributes\": [ \(attributes) ] } ] }".utf8)
                .write(to: URL(fileURLWithPath: folder.path("\(version).json")))
        }
    }

    /// A plain store of `rows` cells, each column four times in five a usual value of its
    /// type, else an edge value; returns the values as the store holds them.
    func writeCells(rows: Int, random: inout SplitMix64) throws -> [Int64: [SQLValue]] {
        let source = folder.path("cells.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: try ModelFile.load(path: folder.path("cells-v1.json"))).schemaSQL() { try db.execute(sql) }
        let names = Self.attributes.map(\.name)
        let usual: [SQLValue] = [.integer(5), .real(2.5), .integer(1), .real(1_000_000), .text("plain"), .blob([1, 2, 3])]
        for key in 1...Int64(rows) {
            var literals: [String] = []
            for column in names.indices {
                let value = random.below(5) != 0 ? usual[column] : random.below(12) == 0 ? Self.invalidText
                    : Self.edgeValues[Int(random.below(Self.edgeValues.count))]
                literals.append(value == Self.invalidText ? "CAST(x'FF41FF' AS TEXT)" : value.sqlLiteral.replacingOccurrences(of: "inf", with: "9e999"))
            }
            try db.execute("INSERT INTO Cell (id, \(names.joined(separator: ", "))) VALUES (\(key), \(literals.joined(separator: ", ")))")
        }
        var stored: [Int64: [SQLValue]] = [:]
        let read = try db.prepare("SELECT id, \(names.joined(separator: ", ")) FROM Cell")
        while try read.step() {
            // Text that is not UTF-8 as the blob of its bytes (`invalidText`), the rest as stored.
            stored[read.int64(0)] = names.indices.map { read.storedValue($0 + 1) }
        }
        db.close()
        return stored
    }

    func cellsPipeline(filter: Bool, policy: Bool, unreadable: String?) throws -> String {
        let copy = Self.attributes.map { "\"\($0.name)\": \"$source.\($0.name)\"" }.joined(separator: ", ")
        let options = unreadable.map { ", \"unreadable\": \"\($0)\"" } ?? ""
        return try folder.pipeline("cells.json", """
            { "format": 1,
              "source": { "store": "cells.sqlite", "model": "cells-v1.json" },
              "destination": { "store": "unused.sqlite", "model": "cells-v3.json" },
              "options": { "maxRejects": 100000\(options) },
              "steps": [
                { "name": "one", "to": "cells-v2.json", "mappings": [ { "name": "Cells", "source": "Cell", "destination": "Cell",
                    \(filter ? "\"filter\": \"$source.i != 7\"," : "") \(policy ? "\"policy\": \"keep\"," : "") "attributes": { \(copy) } } ] },
                { "name": "two", "mappings": [ { "name": "Cells", "source": "Cell", "destination": "Cell", "attributes": { \(copy) } } ] } ] }
            """)
    }

    func testEveryStoredValueArrivesConvertedIsRejectedOrIsCountedNulled() throws {
        let seed = TestSeed(fixedFor: "ReadingRuleDifferentialTests.plain")
        var random = SplitMix64(seed: seed.value)
        try writeModels()
        let stored = try writeCells(rows: 60, random: &random)
        let types = Self.attributes.map(\.type)
        let expected = stored.mapValues { row in zip(row, types).map { Self.expected($0, $1, epoch: 0) } }
        let hint = seed.replayHint

        for (filter, policy, unreadable) in [(false, false, nil), (true, false, nil), (false, true, nil), (false, false, "null"), (false, true, "null")] {
            let pipeline = try cellsPipeline(filter: filter, policy: policy, unreadable: unreadable)
            for fuse in [true, false] {
                var outputs: [String] = []
                for pushdown in [true, false] {
                    let what = "filter \(filter), policy \(policy), unreadable \(unreadable ?? "reject"), fused \(fuse), pushdown \(pushdown); \(hint)"
                    let destination = folder.path("out-\(outputs.count)-\(fuse)-\(filter)-\(policy)-\(unreadable ?? "").sqlite")
                    var migration = Migration(pipeline: pipeline, policies: ["keep": Policy()])
                    migration.destination = destination
                    migration.pushdown = pushdown
                    migration.options.fuseSteps = fuse
                    migration.chunkSize = 7
                    let summary = try migration.run()
                    outputs.append(destination)

                    let rejects = try summary.rejectFile.map(RejectFile.read) ?? []
                    let db = try Database(path: destination, mode: .readOnly)
                    var arrived: [Int64: [SQLValue]] = [:]
                    for row in try db.rows("SELECT id, \(Self.attributes.map(\.name).joined(separator: ", ")) FROM Cell") {
                        guard case .integer(let key) = row[0] else { return XCTFail("a key that is no integer: \(row); \(what)") }
                        arrived[key] = Array(row.dropFirst())
                    }
                    db.close()
                    var nulled = 0
                    for (key, cells) in expected.sorted(by: { $0.key < $1.key }) {
                        let unreadable = cells.indices.filter { cells[$0] == .unreadable }
                        if !unreadable.isEmpty && summaryRejects(unreadable) {
                            // Rejected, naming one of its unreadable values, kept as stored.
                            let reject = rejects.first { $0.key == key }
                            XCTAssertNotNil(reject, "row \(key) with \(unreadable.map { Self.attributes[$0].name }) is not rejected; \(what)")
                            XCTAssertNil(arrived[key], "rejected row \(key) arrived; \(what)")
                            if let reject {
                                let column = Self.attributes.firstIndex { "$source.\($0.name)" == reject.expression }
                                XCTAssertTrue(column.map(unreadable.contains) ?? false, "row \(key) rejected for \(reject.expression); \(what)")
                                if let column {
                                    XCTAssertEqual(reject.values[reject.expression], Self.shown(stored[key]![column]), "row \(key); \(what)")
                                    XCTAssertTrue(reject.error.contains(["NULL", "INTEGER", "REAL", "TEXT", "BLOB"][storageClassIndex(stored[key]![column])]),
                                                  "the storage class is named: \(reject.error); \(what)")
                                }
                            }
                            continue
                        }
                        XCTAssertFalse(rejects.contains { $0.key == key }, "row \(key) rejected: \(rejects.first { $0.key == key }!.error); \(what)")
                        if filter, case .value(.integer(7)) = cells[0] {
                            XCTAssertNil(arrived[key], "row \(key) filtered out; \(what)")
                            continue
                        }
                        guard let row = arrived[key] else { XCTFail("row \(key) did not arrive; \(what)"); continue }
                        for (column, cell) in cells.enumerated() {
                            let name = Self.attributes[column].name
                            switch cell {
                            case .value(let value):
                                XCTAssertTrue(Self.same(row[column], value), "row \(key) \(name): \(row[column]) arrived for \(value) (stored \(stored[key]![column])); \(what)")
                            case .unreadable:
                                XCTAssertEqual(row[column], .null, "row \(key) \(name) stored \(stored[key]![column]); \(what)")
                                nulled += 1
                            }
                        }
                    }
                    XCTAssertEqual(rejects.count, Set(rejects.map(\.key)).count, "one reject per row; \(what)")
                    XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.nullsOnPurpose }, nulled, "nulled; \(what)")
                    XCTAssertEqual(summary.mappings.reduce(0) { $0 + $1.rejected }, rejects.count, "rejected; \(what)")

                    func summaryRejects(_ columns: [Int]) -> Bool { unreadable != "null" }
                }
                try assertSameStore(outputs[0], outputs[1])
            }
        }
    }

    func storageClassIndex(_ value: SQLValue) -> Int {
        switch value {
        case .null: return 0
        case .integer: return 1
        case .real: return 2
        case .text: return 3
        case .blob(let b): return b == Self.invalidText.blobBytes ? 3 : 4
        }
    }

    // MARK: Core Data stores

    /// The books sample in Core Data's layout, its `published` (date, seconds since 2001)
    /// and `price` (double) given edge values, through its bundle's three versions.
    func testACoreDataStoresValuesArriveConvertedOnceOrAreRejected() throws {
        let seed = TestSeed(fixedFor: "ReadingRuleDifferentialTests.coredata")
        var random = SplitMix64(seed: seed.value)
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 40, seed: seed.value, to: source, layout: .coredata)
        let db = try Database(path: source, mode: .readWrite)
        for key in 1...Int64(40) where random.below(3) != 0 {
            for column in ["ZPUBLISHED", "ZPRICE"] where random.below(2) == 0 {
                let value = Self.edgeValues[Int(random.below(Self.edgeValues.count))]
                try db.execute("UPDATE ZBOOK SET \(column) = \(value.sqlLiteral.replacingOccurrences(of: "inf", with: "9e999")) WHERE Z_PK = \(key)")
            }
        }
        var expected: [String: (published: Expected, price: Expected, stored: [SQLValue])] = [:]
        for row in try db.rows("SELECT ZTITLE, ZPUBLISHED, ZPRICE FROM ZBOOK") {
            guard case .text(let title) = row[0] else { return XCTFail("\(row)") }
            expected[title] = (Self.expected(row[1], "date", epoch: 978_307_200), Self.expected(row[2], "double", epoch: 978_307_200), row)
        }
        db.close()
        let pipeline = try String(contentsOfFile: repositoryPath("pipelines/books-coredata.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"workers\": 2", with: "\"workers\": 2, \"maxRejects\": 1000")
            .replacingOccurrences(of: "models/Books.xcdatamodeld", with: repositoryPath("pipelines/models/Books.xcdatamodeld"))
        let file = try folder.pipeline("books.json", pipeline)
        var outputs: [String] = []
        for pushdown in [true, false] {
            let what = "pushdown \(pushdown); \(seed.replayHint)"
            var migration = Migration(pipeline: file)
            migration.source = source
            migration.destination = folder.path("out-\(pushdown).sqlite")
            migration.pushdown = pushdown
            let summary = try migration.run()
            outputs.append(migration.destination!)
            let rejects = try summary.rejectFile.map(RejectFile.read) ?? []
            let out = try Database(path: migration.destination!, mode: .readOnly)
            var arrived: [String: [SQLValue]] = [:]
            for row in try out.rows("SELECT ZTITLE, ZPUBLISHED, ZPRICE FROM ZBOOK") {
                if case .text(let title) = row[0] { arrived[title] = Array(row.dropFirst()) }
            }
            out.close()
            var rejectedBooks = 0
            for (title, cells) in expected {
                if cells.published == .unreadable || cells.price == .unreadable {
                    rejectedBooks += 1
                    XCTAssertNil(arrived[title], "\(title) with \(cells.stored) arrived; \(what)")
                    continue
                }
                guard let row = arrived[title] else { XCTFail("\(title) with \(cells.stored) did not arrive; \(what)"); continue }
                if case .value(let published) = cells.published {
                    XCTAssertTrue(Self.same(row[0], published), "\(title) published \(row[0]) for \(cells.stored[1]); \(what)")
                }
                if case .value(let price) = cells.price {
                    XCTAssertTrue(Self.same(row[1], price), "\(title) price \(row[1]) for \(cells.stored[2]); \(what)")
                }
            }
            XCTAssertGreaterThan(rejectedBooks, 0, "the edge values reject some books; \(what)")
            let books = rejects.filter { $0.entity == "Book" && $0.mapping == "Books" && $0.step == "v1 to v2" }
            XCTAssertEqual(books.count, rejectedBooks, "\(what)")
            for reject in books {
                let original = reject.values[reject.expression]
                let stored = reject.expression == "$source.published" ? 1 : 2
                XCTAssertTrue(expected.values.contains { original == Self.shown($0.stored[stored]) }, "\(reject); \(what)")
            }
        }
        try assertSameStore(outputs[0], outputs[1])
    }
}

private extension SQLValue {
    var blobBytes: [UInt8]? {
        if case .blob(let b) = self { return b }
        return nil
    }
}
