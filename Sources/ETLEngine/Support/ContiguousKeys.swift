import ETLStore

extension Database {
    /// The keys of table `table` of `main` when they are contiguous — a row for every
    /// integer from the lowest key to the highest — else nil (and nil when it is empty).
    ///
    /// `key` must be the table's rowid (`INTEGER PRIMARY KEY`): unique integers, so that
    /// as many rows as the span proves every key of it is there. Then whether a row has
    /// key k is a range test instead of a lookup.
    func contiguousKeys(ofTable table: String, key: String) throws -> ClosedRange<Int64>? {
        let row = try rows("SELECT min(\(Database.quote(key))), max(\(Database.quote(key))), count(*) FROM main.\(Database.quote(table))")[0]
        guard case .integer(let low) = row[0], case .integer(let high) = row[1], case .integer(let count) = row[2],
              case let (span, overflow) = high.subtractingReportingOverflow(low), !overflow, span == count - 1 else { return nil }
        return low...high
    }
}
