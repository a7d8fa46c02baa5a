import ETLDocument

/// A store's manifest line (`{"store":{…}}`) written field by field (`SortedJSONWriter`):
/// the same bytes as `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` writes,
/// without its cost (about 235,000 instructions a line, on every store of a batch, twice:
/// its `started` entry and its outcome). A test compares the two on entries with every
/// field set and on awkward strings and numbers.
enum BatchManifestEntryJSON {
    /// The line of `entry`, newline not included; nil when a number is not finite (no
    /// batch writes one): `JSONEncoder` then says why it cannot be written.
    static func line(_ entry: BatchStoreResult) -> [UInt8]? {
        var writer = SortedJSONWriter(escapingSlashes: false)
        writer.object { line in line.add("store") { write(entry, to: &$0) } }
        return writer.finite ? writer.bytes : nil
    }

    private static func write(_ entry: BatchStoreResult, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("path", entry.path)
            object.add("store", entry.store)
            object.add("output", entry.output)
            object.add("status", entry.status.rawValue)
            object.add("fromVersion", entry.fromVersion)
            object.add("toVersion", entry.toVersion)
            object.add("rows") { $0.counts(entry.rows) }
            if let dropped = entry.dropped { object.add("dropped") { $0.counts(dropped) } }
            object.add("rejected", entry.rejected)
            object.add("nulled", entry.nulled)
            object.add("seconds", entry.seconds)
            if let cost = entry.cost { object.add("cost") { write(cost, to: &$0) } }
            object.add("error", entry.error)
            object.add("backup", entry.backup)
            object.add("notes", entry.notes)
            object.add("time", entry.time)
            object.add("outputExisted", entry.outputExisted)
            if let source = entry.source { object.add("source") { write(source, to: &$0) } }
            object.add("inputs", entry.inputs)
            if let result = entry.result { object.add("result") { write(result, to: &$0) } }
            object.add("stale", entry.stale)
        }
    }

    private static func write(_ cost: BatchStoreCost, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("open", cost.open)
            object.add("plan", cost.plan)
            object.add("check", cost.check)
            object.add("copy", cost.copy)
            object.add("validate", cost.validate)
            object.add("rename", cost.rename)
        }
    }

    private static func write(_ identity: BatchSourceIdentity, to writer: inout SortedJSONWriter) {
        writer.object { object in
            object.add("device", identity.device)
            object.add("inode", identity.inode)
            object.add("size", identity.size)
            object.add("modified", identity.modified)
            object.add("firstPage", identity.firstPage)
            object.add("lastPage", identity.lastPage)
            object.add("walSize", identity.walSize)
            object.add("walModified", identity.walModified)
            object.add("content", identity.content)
        }
    }
}
