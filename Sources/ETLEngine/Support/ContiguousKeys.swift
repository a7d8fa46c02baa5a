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
        let from = "\(schema).\(Database.quote(table)) t"
        let key = "t.\(Database.quote(key))"
        // Without a condition, each in its own subquery: alone, min and max of a rowid are
        // one seek each and count(*) adds up the cells of the table's pages; together in one
        // SELECT they read every row.
        let row = try rows(condition.map { "SELECT min(\(key)), max(\(key)), count(*) FROM \(from) WHERE \($0)" }
                           ?? "SELECT (SELECT min(\(key)) FROM \(from)), (SELECT max(\(key)) FROM \(from)), (SELECT count(*) FROM \(from))")[0]
        guard case .integer(let low) = row[0], case .integer(let high) = row[1], case .integer(let count) = row[2],
              case let (span, overflow) = high.subtractingReportingOverflow(low), !overflow, span == count - 1 else { return nil }
        return low...high
    }

    /// SQL: whether `value` is one of the keys from `lower` to `upper` (literals or
    /// parameters) of a table whose keys are contiguous. Only an integer is a key: a real
    /// such as 1.5 lies between two keys and names no row (a column of INTEGER affinity
    /// keeps a real or a text only when it is not an integer), and a lookup would not find it.
    static func keyBetween(_ value: String, _ lower: String, _ upper: String) -> String {
        "(\(value) BETWEEN \(lower) AND \(upper) AND \(value) = CAST(\(value) AS INTEGER))"
    }
}
