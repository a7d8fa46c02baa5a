import Foundation
import ETLStore

/// A join table that a relate statement would copy from the source pair by pair, every
/// pair unchanged (both sides keep their source keys and every listed key has its row),
/// copied instead as SQLite copies a table into an empty one of the same shape: `INSERT
/// INTO main.t SELECT * FROM src.t`, which SQLite runs as a copy of the table's records,
/// in their order, without decoding them (its "transfer optimization"), when both tables
/// are alike and the destination has no index yet (its indexes are built after the load,
/// as always): less work than an `INSERT … SELECT`, which decodes each pair and encodes
/// it again.
///
/// The rows are those the relate statement writes exactly when every pair's keys are
/// integers in the key ranges of the rows made: the statement skips a pair whose row is
/// not there, the copy would not. So the copy is checked where it landed, in one scan of
/// the new table (`inRange`) — which reads the very records copied, where the source's
/// index on a column could say otherwise in a damaged store — and undone when a pair is
/// out of range; then the statement runs. So does it when anything else about the two
/// tables differs (column order, types, `WITHOUT ROWID`).
struct VerbatimLinks {
    /// The join tables: the destination's and the source's.
    let table: String
    let sourceTable: String
    /// Where the destination table's owner and target keys are, and the source's: the same
    /// places (`alike` checks that each column is at the same position in both).
    let ownColumn: String
    let otherColumn: String
    let sourceOwnColumn: String
    let sourceOtherColumn: String

    /// Copies the table if the copy gives the statement's rows, inside the caller's
    /// transaction; false (nothing written) when it does not.
    /// - Parameters:
    ///   - owners: the owner table's destination keys, all of them rows (`contiguousKeys`).
    ///   - targets: the target table's, alike.
    func copy(on db: Database, owners: ClosedRange<Int64>, targets: ClosedRange<Int64>) throws -> Bool {
        guard try alike(on: db) else { return false }
        try db.execute("SAVEPOINT verbatim_links")
        try db.run("INSERT OR IGNORE INTO main.\(Database.quote(table)) SELECT * FROM src.\(Database.quote(sourceTable))")
        guard try inRange(on: db, owners: owners, targets: targets) else {
            try db.execute("ROLLBACK TO verbatim_links; RELEASE verbatim_links")
            return false
        }
        try db.execute("RELEASE verbatim_links")  // (`db.changes` still counts the copy's rows)
        return true
    }

    /// Whether the destination table is empty, without an index, and shaped as the
    /// source's: the same columns in the same places, declared alike, both `WITHOUT ROWID`
    /// (so no rowid is carried over where the statement numbers them anew).
    private func alike(on db: Database) throws -> Bool {
        guard try db.rows("SELECT 1 FROM main.\(Database.quote(table)) LIMIT 1").isEmpty,
              try db.scalarInt("SELECT count(*) FROM pragma_index_list(?, 'main') WHERE origin <> 'pk'", [.text(table)]) == 0 else { return false }
        let withoutRowid = "SELECT wr FROM pragma_table_list WHERE schema = ? AND name = ?"
        guard try db.scalarInt(withoutRowid, [.text("main"), .text(table)]) == 1,
              try db.scalarInt(withoutRowid, [.text("src"), .text(sourceTable)]) == 1 else { return false }
        let columns = "SELECT name, upper(type), \"notnull\", pk FROM pragma_table_info(?, ?) ORDER BY cid"
        let destination = try db.rows(columns, [.text(table), .text("main")])
        let source = try db.rows(columns, [.text(sourceTable), .text("src")])
        guard destination.count == 2, source.count == 2 else { return false }
        let places = [(ownColumn, sourceOwnColumn), (otherColumn, sourceOtherColumn)]
        for (mine, theirs) in zip(destination, source) {
            guard Array(mine[1...]) == Array(theirs[1...]),
                  places.contains(where: { mine[0] == .text($0.0) && theirs[0] == .text($0.1) }) else { return false }
        }
        return true
    }

    /// Whether every pair copied holds two keys, each in its side's range (`keyBetween`,
    /// a fifth cheaper than asking each value's `typeof`).
    private func inRange(on db: Database, owners: ClosedRange<Int64>, targets: ClosedRange<Int64>) throws -> Bool {
        let (own, other) = (Database.quote(ownColumn), Database.quote(otherColumn))
        let outside = "SELECT 1 FROM main.\(Database.quote(table)) WHERE \(own) IS NULL OR \(other) IS NULL "
            + "OR NOT (\(Database.keyBetween(own, "?1", "?2")) AND \(Database.keyBetween(other, "?3", "?4"))) LIMIT 1"
        let bounds: [SQLValue] = [owners.lowerBound, owners.upperBound, targets.lowerBound, targets.upperBound].map { .integer($0) }
        return try db.rows(outside, bounds).isEmpty
    }
}
