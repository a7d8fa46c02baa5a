import ETLStore

extension Database {
    /// The keys of table `table` of `schema` when they are contiguous — a row for every
    /// integer from the lowest key to the highest — else nil (and nil when it is empty).
    /// With `condition` (on alias `t`), the keys of the rows that meet it: of one entity
    /// of a table several share.
    ///
    /// `key` must be the table's rowid (`INTEGER PRIMARY KEY`): unique integers, so that
    /// as many rows as the span proves every key of it is there. Then whether a row has
    /// key k is a range test instead of a lookup.
    func contiguousKeys(ofTable table: String, key: String, schema: String = "main", condition: String? = nil) throws -> ClosedRange<Int64>? {
        let key = "t.\(Database.quote(key))"
        let row = try rows("SELECT min(\(key)), max(\(key)), count(*) FROM \(schema).\(Database.quote(table)) t"
                           + (condition.map { " WHERE \($0)" } ?? ""))[0]
        guard case .integer(let low) = row[0], case .integer(let high) = row[1], case .integer(let count) = row[2],
              case let (span, overflow) = high.subtractingReportingOverflow(low), !overflow, span == count - 1 else { return nil }
        return low...high
    }
}
