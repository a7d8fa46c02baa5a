import ETLStore

/// The record that a step's store passed validation, kept with the data it vouches for:
/// a row committed after `ValidateStage` passed, in the store the next step reads (an
/// intermediate store's own `main`) or, for the last step, in the work database beside
/// the store to install (the user's store gets no table of ours).
///
/// A checkpoint only says where a run is, and anyone can write one: a store is installed,
/// or read by the next step, only when this record is there, never because a checkpoint's
/// stage says validation is behind it.
enum ValidationProof {
    static let table = "etl_validation"

    /// Records that step `step` of `run` passed validation (`schema`: where in `db`).
    static func record(step: Int, run: RunIdentity, schema: String, in db: Database) throws {
        try db.transaction {
            try db.execute("CREATE TABLE IF NOT EXISTS \(schema).\(table) (step INTEGER PRIMARY KEY, run TEXT NOT NULL)")
            try db.run("INSERT OR REPLACE INTO \(schema).\(table) (step, run) VALUES (?, ?)", [.integer(Int64(step)), .text(fingerprint(run))])
        }
    }

    /// Refuses unless the database at `path` records that step `step` of `run` passed validation.
    static func require(step: Int, run: RunIdentity, in path: String, store: String, checkpoint: String) throws {
        let db = try? Database(path: path, mode: .readOnly)
        try require(step: step, run: run, in: db, path: path, store: store, checkpoint: checkpoint)
    }

    /// `require` on a connection already open to the database at `path`: the one the next
    /// step reads its input through. The record read is the same (the file's committed
    /// state); only a second open and schema parse of the file are spared.
    static func require(step: Int, run: RunIdentity, in db: Database?, path: String, store: String, checkpoint: String) throws {
        let found = db.flatMap { db in
            // A table of that name, not a view (`objectType`): the statement reads no view's query.
            try? db.objectType(named: table) == "table"
                && !db.rows("SELECT 1 FROM \(table) WHERE step = ? AND run = ?", [.integer(Int64(step)), .text(fingerprint(run))]).isEmpty
        } ?? false
        guard found else {
            throw MigrationError.badCheckpoint(path: checkpoint, reason: "it continues after the validation of step \(step + 1), "
                + "but \(store) was never validated (no record of it in \(path))")
        }
    }

    private static func fingerprint(_ run: RunIdentity) -> String {
        "\(run.pipeline) \(run.source.header) \(run.source.size)"
    }
}
