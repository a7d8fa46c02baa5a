/// A store's manifest line (`{"store":{…}}`) written field by field: the same bytes as
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` writes, without its cost.
///
/// `JSONEncoder` spent about 235,000 instructions on a line, most of it the Swift runtime
/// looking up types and conformances for its generic containers, on every store of a
/// batch, twice (its `started` entry and its outcome). The format is that encoder's:
/// keys sorted by their UTF-8 bytes, an optional left out when nil, integers in decimal,
/// doubles as their `description` less a trailing ".0", strings escaped as it escapes
/// them (quote, backslash, control characters; `/` and non-ASCII as they are). A test
/// compares the two on entries with every field set and on awkward strings and numbers.
enum BatchManifestEntryJSON {
    /// The line of `entry`, newline not included; nil when a number is not finite (no
    /// batch writes one): `JSONEncoder` then says why it cannot be written.
    static func line(_ entry: BatchStoreResult) -> [UInt8]? {
        var object = JSONObject()
        object.add("store") { $0.entry(entry) }
        var writer = JSONBytes()
        guard writer.object(object) else { return nil }
        return writer.bytes
    }
}

/// The members of one JSON object, each value already written, put in `JSONEncoder`'s
/// `.sortedKeys` order (by the keys' UTF-8 bytes) when the object is.
private struct JSONObject {
    var members: [(key: String, value: JSONBytes)] = []
    var finite = true

    mutating func add(_ key: String, _ write: (inout JSONBytes) -> Void) {
        var value = JSONBytes()
        write(&value)
        finite = finite && value.finite
        members.append((key, value))
    }

    mutating func add(_ key: String, _ text: String?) {
        guard let text else { return }
        add(key) { $0.string(text) }
    }

    mutating func add<Number: FixedWidthInteger>(_ key: String, _ number: Number?) {
        guard let number else { return }
        add(key) { $0.ascii(String(number)) }
    }

    mutating func add(_ key: String, _ number: Double) {
        add(key) { $0.double(number) }
    }
}

private struct JSONBytes {
    var bytes: [UInt8] = []
    /// False once a double that is not finite was asked for.
    var finite = true

    mutating func ascii(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Written `"…"` as `JSONEncoder` writes it with `.withoutEscapingSlashes`.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00...0x1F:
                let digits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `description`, a trailing ".0" left out (1.0 → 1, 1e+20 stays).
    mutating func double(_ number: Double) {
        guard number.isFinite else {
            finite = false
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        ascii(text)
    }

    mutating func bool(_ value: Bool) { ascii(value ? "true" : "false") }

    mutating func strings(_ texts: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(text)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func counts(_ counts: [String: Int]) {
        var object = JSONObject()
        for (key, count) in counts { object.add(key, count) }
        _ = self.object(object)
    }

    /// The members in sorted order; false when a number in them is not finite.
    @discardableResult
    mutating func object(_ object: JSONObject) -> Bool {
        bytes.append(UInt8(ascii: "{"))
        for (index, member) in object.members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(member.key)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: member.value.bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        finite = finite && object.finite
        return finite
    }

    mutating func entry(_ entry: BatchStoreResult) {
        var object = JSONObject()
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
        if let cost = entry.cost { object.add("cost") { $0.cost(cost) } }
        object.add("error", entry.error)
        object.add("backup", entry.backup)
        object.add("notes") { $0.strings(entry.notes) }
        object.add("time", entry.time)
        if let existed = entry.outputExisted { object.add("outputExisted") { $0.bool(existed) } }
        if let source = entry.source { object.add("source") { $0.identity(source) } }
        object.add("inputs", entry.inputs)
        if let result = entry.result { object.add("result") { $0.identity(result) } }
        if let stale = entry.stale { object.add("stale") { $0.strings(stale) } }
        self.object(object)
    }

    mutating func cost(_ cost: BatchStoreCost) {
        var object = JSONObject()
        object.add("open", cost.open)
        object.add("plan", cost.plan)
        object.add("check", cost.check)
        object.add("copy", cost.copy)
        object.add("validate", cost.validate)
        object.add("rename", cost.rename)
        self.object(object)
    }

    mutating func identity(_ identity: BatchSourceIdentity) {
        var object = JSONObject()
        object.add("device", identity.device)
        object.add("inode", identity.inode)
        object.add("size", identity.size)
        object.add("modified", identity.modified)
        object.add("firstPage", identity.firstPage)
        object.add("lastPage", identity.lastPage)
        object.add("walSize", identity.walSize)
        object.add("walModified", identity.walModified)
        object.add("content", identity.content)
        self.object(object)
    }
}
