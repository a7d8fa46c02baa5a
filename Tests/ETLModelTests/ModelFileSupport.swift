import ETLStore
import ETLModel

/// A model file's JSON decoded as the file `model.json` (the name its errors give).
func decodeModel(_ json: String) throws -> Model {
    try ModelFile.decode(JSONCursor.parse(Array(json.utf8), file: "model.json"))
}

/// A fresh in-memory store holding `layout`'s schema.
func emptyStore(_ layout: some StoreLayout) throws -> Database {
    let db = try Database(path: ":memory:", mode: .create)
    for sql in layout.schemaSQL() { try db.execute(sql) }
    return db
}
