import ETLStore
import ETLModel
import ETLPipeline

/// Rows of one chunk: keys and, per row, the value of every path.
struct SourceRows {
    var keys: [Int64] = []
    var values: [[Value]] = []
}

/// Runs a `SourceQuery` on one connection, keeping its statements prepared.
final class SourceReader {
    let query: SourceQuery
    let database: Database
    private let scan: Statement
    private let fetch: Statement
    private let toMany: [Statement]
    private let epoch: Double

    init(query: SourceQuery, database: Database) throws {
        self.query = query
        self.database = database
        scan = try database.prepare(query.scanSQL)
        fetch = try database.prepare(query.fetchSQL)
        toMany = try query.toMany.map { try database.prepare($0.sql) }
        epoch = query.layout.dateEpoch
    }

    func count() throws -> Int {
        Int(try database.scalarInt(query.countSQL))
    }

    /// The next chunk of the keyset scan, keys from `key` on, or nil when the entity is exhausted.
    func scan(from key: Int64, limit: Int) throws -> SourceRows? {
        try scan.bind([.integer(key), .integer(Int64(limit))])
        let rows = try read(scan)
        return rows.keys.isEmpty ? nil : rows
    }

    /// The rows with these keys (missing keys are absent from the result).
    func fetch(keys: [Int64]) throws -> [Int64: [Value]] {
        guard !keys.isEmpty else { return [:] }
        try fetch.bind([.text(jsonArray(keys))])
        let rows = try read(fetch)
        return Dictionary(zip(rows.keys, rows.values), uniquingKeysWith: { a, _ in a })
    }

    private func read(_ statement: Statement) throws -> SourceRows {
        defer { statement.reset() }
        var rows = SourceRows()
        var owners: [[Int64]] = Array(repeating: [], count: query.toMany.count)
        var raw: [[SQLValue]] = []
        while try statement.step() {
            rows.keys.append(statement.int64(0))
            var values = [Value]()
            values.reserveCapacity(query.slots.count)
            for slot in query.slots {
                switch slot {
                case .column(let index, let type):
                    var value = Value(sql: statement.value(index), as: type)
                    if epoch != 0, case .date(let seconds) = value { value = .date(seconds + epoch) }
                    values.append(value)
                case .toMany(let q):
                    let owner = statement.value(query.toMany[q].ownerColumn)
                    if case .integer(let key) = owner { owners[q].append(key) }
                    values.append(.rows([]))
                }
            }
            if !query.toMany.isEmpty {
                raw.append(query.toMany.map { statement.value($0.ownerColumn) })
            }
            rows.values.append(values)
        }
        // One query per to-many path for the whole chunk, then each row gets its list.
        for (q, statement) in toMany.enumerated() where !owners[q].isEmpty {
            var links: [Int64: [Int64]] = [:]
            try statement.bind([.text(jsonArray(Array(Set(owners[q]))))])
            defer { statement.reset() }
            while try statement.step() {
                links[statement.int64(0), default: []].append(statement.int64(1))
            }
            for (rowIndex, ownerValues) in raw.enumerated() {
                guard case .integer(let owner) = ownerValues[q] else { continue }
                for (slotIndex, slot) in query.slots.enumerated() {
                    if case .toMany(let sq) = slot, sq == q {
                        rows.values[rowIndex][slotIndex] = .rows(links[owner] ?? [])
                    }
                }
            }
        }
        return rows
    }
}

func jsonArray(_ keys: [Int64]) -> String {
    "[" + keys.map(String.init).joined(separator: ",") + "]"
}
