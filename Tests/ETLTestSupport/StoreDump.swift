import Foundation
import XCTest
import ETLStore

/// Every table of a store (but `excluding`), each ordered by all its columns, one line a
/// row: equal dumps, equal stores.
public func storeDump(_ path: String, excluding: Set<String> = []) throws -> [String] {
    let db = try Database(path: path, mode: .readOnly)
    defer { db.close() }
    var lines: [String] = []
    for table in try db.tables() where !excluding.contains(table.name) {
        let columns = table.columns.map { Database.quote($0.name) }
        lines.append("## \(table.name)(\(columns.joined(separator: ",")))")
        for row in try db.rows("SELECT * FROM \(Database.quote(table.name)) ORDER BY " + (1...columns.count).map(String.init).joined(separator: ",")) {
            lines.append(row.map(\.sqlLiteral).joined(separator: "|"))
        }
    }
    return lines
}

/// Asserts two stores hold the same rows, naming the first line that differs (not the
/// whole dump). An almost empty store proves nothing, so it fails too.
public func assertSameStore(_ a: String, _ b: String, excluding: Set<String> = [],
                            file: StaticString = #filePath, line: UInt = #line) throws {
    let left = try storeDump(a, excluding: excluding), right = try storeDump(b, excluding: excluding)
    XCTAssertGreaterThan(left.count, 10, "an empty store proves nothing: \(a)", file: file, line: line)
    if let index = left.indices.first(where: { $0 < right.count && left[$0] != right[$0] }) {
        XCTFail("\(a) and \(b) differ at dump line \(index + 1): \(left[index]) ≠ \(right[index])", file: file, line: line)
    } else if left.count != right.count {
        XCTFail("\(a) and \(b) differ in length: \(left.count) vs \(right.count) dump lines", file: file, line: line)
    }
}
