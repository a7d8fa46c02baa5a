import ETLStore

/// A step whose input store holds no more rows, all its tables together, than one chunk:
/// a kill anywhere inside it loads at most one chunk again even when the rerun starts the
/// step over, which is all the checkpoints inside a step promise. So such a step keeps
/// them in memory (`RunState.save`) and writes only what stays needed: the durable
/// checkpoints between steps and before the final rename, and on an interruption or an
/// error that keeps the work, the last position reached. For a batch of small stores,
/// this spares a dozen checkpoint files per store.
enum OneChunkStep {
    /// Whether the store `input` holds at most `chunkSize` rows. Each table is counted no
    /// further than one row past a chunk, so a large store costs a chunk's scan per table,
    /// not its size; all of them in one statement, which a small store's many steps
    /// prepare once each rather than once per table.
    static func holds(_ input: Database, chunkSize: Int) throws -> Bool {
        let tables = try input.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        let counts = tables.compactMap { row -> String? in
            guard case .text(let table)? = row.first else { return nil }
            return "(SELECT count(*) FROM (SELECT 1 FROM main.\(Database.quote(table)) LIMIT ?1))"
        }
        guard !counts.isEmpty else { return true }
        let limit = Int64(chunkSize) + 1
        return try input.scalarInt("SELECT " + counts.joined(separator: " + "), [.integer(limit)]) <= Int64(chunkSize)
    }
}
