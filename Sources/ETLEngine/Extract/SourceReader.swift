import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// Rows of one chunk: keys and, per row, the value of every path.
struct SourceRows {
    var keys: [Int64] = []
    var values: [[Value]] = []
    /// Dates shifted to 1970 that lost their last bit: row → value position → what the
    /// stored value minus the epoch misses of it (`stored == (shifted - epoch) + residual`,
    /// exactly). A date copied to a store of the same epoch gets its stored bits back.
    var dateResiduals: [Int: [Int: Double]] = [:]
    /// Rows holding a value that cannot be read as its attribute's type without changing
    /// it (`Value.unreadable`), by row index: the path and why. The create stage rejects them.
    var unreadable: [Int: (path: String, reason: String)] = [:]
    /// Values the reading rule does not read, as stored (`Value.shown`), by row index and
    /// slot: what the reject file shows of them (their `values` are null).
    var originals: [Int: [Int: String]] = [:]
    /// Per row index, the values made null because the pipeline says `"unreadable": "null"`
    /// for them: counted as nulled when the row is made.
    var nulledUnreadable: [Int: Int] = [:]
    /// Values read from a file of the store's external storage, by row index and slot:
    /// their markers, so a value passed through unchanged keeps its form.
    var externalMarkers: [Int: [Int: [UInt8]]] = [:]
    /// Externally stored values whose file was not read, by row index and slot (`UnreadMarker`).
    /// Null in `values`, their markers in `externalMarkers`: a row that only passes them
    /// through is made (`Transformer`), any other use rejects it with the marker's reason.
    var unreadMarkers: [Int: [Int: UnreadMarker]] = [:]
}

/// A marker of an externally stored value whose value is not read, and why.
struct UnreadMarker {
    enum Cause {
        /// Its file is missing (`ExternalBinaryStorage.Read.missing`): passed through, the
        /// value is carried as a marker without a file (`DanglingExternalData`).
        case missingFile
        /// Its file is too large to read (`ExternalBinaryStorage.maximumBytes`): passed
        /// through, the file is linked as it is.
        case fileTooLarge
    }

    let cause: Cause
    /// `$source.attribute`.
    let path: String
    /// The store, the row and what is wrong.
    let reason: String
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
        externalFolder = WorkArea.externalFolder(ofStore: database.path)
    }

    /// Where the store keeps externally stored binary values.
    private let externalFolder: String

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
        try fetchReadable(keys: keys).values
    }

    /// The rows with these keys, and those holding a value that cannot be read
    /// (`SourceRows.unreadable`), by key.
    func fetchReadable(keys: [Int64]) throws -> (values: [Int64: [Value]], unreadable: [Int64: (path: String, reason: String)]) {
        guard !keys.isEmpty else { return ([:], [:]) }
        try fetch.bind([.text(jsonArray(keys))])
        let rows = try read(fetch)
        var unreadable: [Int64: (path: String, reason: String)] = [:]
        for (index, problem) in rows.unreadable { unreadable[rows.keys[index]] = problem }
        // An item's value is read, never passed through: a file missing or too large makes it unreadable.
        for (index, slots) in rows.unreadMarkers where unreadable[rows.keys[index]] == nil {
            unreadable[rows.keys[index]] = slots.min { $0.key < $1.key }.map { ($0.value.path, $0.value.reason) }
        }
        return (Dictionary(zip(rows.keys, rows.values), uniquingKeysWith: { a, _ in a }), unreadable)
    }

    /// The marker of slot `slot` of the last row read, not read for `why`.
    private func unreadMarker(_ cause: UnreadMarker.Cause, slot: Int, why: String, in rows: SourceRows) -> UnreadMarker {
        UnreadMarker(cause: cause, path: (["$source"] + query.paths[slot]).joined(separator: "."),
                     reason: "store \(database.path), \(query.entity) row \(rows.keys.last!): \(why)")
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
            for (slotIndex, slot) in query.slots.enumerated() {
                switch slot {
                case .column(let index, let type):
                    var stored = statement.storedValue(index)
                    var reason: String?
                    if query.externals.contains(slotIndex), case .blob(let marked) = stored {
                        // The real bytes, wherever Core Data keeps them: what expressions,
                        // policies and rejects see.
                        switch ExternalBinaryStorage.read(marked, folder: externalFolder) {
                        case .bytes(let bytes):
                            stored = .blob(bytes)
                            if marked.first == 0x02 { rows.externalMarkers[rows.keys.count - 1, default: [:]][slotIndex] = marked }
                        case .missing(let why):
                            stored = .null
                            rows.externalMarkers[rows.keys.count - 1, default: [:]][slotIndex] = marked
                            rows.unreadMarkers[rows.keys.count - 1, default: [:]][slotIndex] = unreadMarker(.missingFile, slot: slotIndex, why: why, in: rows)
                        case .unreadable(let why):
                            stored = .null
                            reason = "store \(database.path), \(query.entity) row \(rows.keys.last!): \(why)"
                        case .tooLarge(let why):
                            stored = .null
                            rows.externalMarkers[rows.keys.count - 1, default: [:]][slotIndex] = marked
                            rows.unreadMarkers[rows.keys.count - 1, default: [:]][slotIndex] = unreadMarker(.fileTooLarge, slot: slotIndex, why: why, in: rows)
                        }
                    }
                    // The reading rule (`Value.reading`): a number of a date is shifted from
                    // the layout's epoch, ISO text names its instant and is not shifted again.
                    var value: Value
                    if reason == nil, let read = Value.reading(stored, as: type, epoch: epoch) {
                        value = read
                        if epoch != 0, case .date(let shifted) = value, case .real(let seconds) = stored {
                            // Both differences are exact (Sterbenz): the residual restores `seconds`.
                            let residual = seconds - (shifted - epoch)
                            if residual != 0 { rows.dateResiduals[rows.keys.count - 1, default: [:]][values.count] = residual }
                        }
                    } else {
                        value = .null
                        let path = (["$source"] + query.paths[slotIndex]).joined(separator: ".")
                        if reason == nil, query.nullsUnreadable(slot: slotIndex) {
                            // `"unreadable": "null"`: the pipeline asked for null; counted as nulled.
                            rows.nulledUnreadable[rows.keys.count - 1, default: 0] += 1
                        } else if rows.unreadable[rows.keys.count - 1] == nil {
                            rows.unreadable[rows.keys.count - 1] = (path, reason ?? "store \(database.path), \(query.entity) row \(rows.keys.last!): "
                                + (Value.unreadable(sql: stored, as: type, storedAsText: statement.isText(index)) ?? "unreadable"))
                        }
                        rows.originals[rows.keys.count - 1, default: [:]][slotIndex] = Value.shown(stored)
                    }
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
                // A side that is no integer is no key (`1.5` lies between two): the link names no
                // row, and `DanglingLinks` has rejected or dropped it before the step, as the
                // pipeline says. (int64 would CAST it to a key: 1.5 linked to row 1.)
                guard case .integer(let owner) = statement.value(0), case .integer(let target) = statement.value(1) else { continue }
                links[owner, default: []].append(target)
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
