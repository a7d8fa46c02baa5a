import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

/// The books app of the demo, tests and benchmarks: writes a deterministic v1 store.
///
/// v1 has `User` (userId, name) and `Book` (title, authorName, fileURL, published, price),
/// with the many-to-many `User.books` ↔ `Book.users`. For N books the store holds
/// max(1, N/20) users, author names drawn from max(1, N/8) distinct names (5 % of books
/// have none), 0–3 users per book, and 10 % of prices and 2 % of file URLs missing.
public enum BooksSample {
    /// Model version 1, identical to `pipelines/models/books-v1.json` (a test checks it).
    public static let modelV1 = Model(version: "books-v1", entities: [
        Entity(name: "User", attributes: [
            Attribute(name: "userId", type: .integer64, isOptional: false),
            Attribute(name: "name", type: .string, isOptional: false),
        ], relationships: [
            Relationship(name: "books", destination: "Book", inverse: "users", isToMany: true),
        ]),
        Entity(name: "Book", attributes: [
            Attribute(name: "title", type: .string, isOptional: false),
            Attribute(name: "authorName", type: .string),
            Attribute(name: "fileURL", type: .uri),
            Attribute(name: "published", type: .date),
            Attribute(name: "price", type: .double),
        ], relationships: [
            Relationship(name: "users", destination: "User", inverse: "books", isToMany: true),
        ]),
    ])

    /// Version 1 as the books app's bundle has it (`pipelines/models/Books.xcdatamodeld`,
    /// books-v1): there userId defaults to 0, which the Core Data sample keeps in its model
    /// (`Z_MODELCACHE`), so that the kept model is the bundle's version.
    public static var coreDataModelV1: Model {
        var model = modelV1
        if let user = model.entities.firstIndex(where: { $0.name == "User" }),
           let userId = model.entities[user].attributes.firstIndex(where: { $0.name == "userId" }) {
            model.entities[user].attributes[userId].defaultValue = .integer(0)
        }
        return model
    }

    public struct Counts: Sendable, Equatable {
        public var books: Int
        public var users: Int
        public var links: Int
    }

    static let firstNames = ["Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "Hedy",
                             "Ivan", "John", "Katherine", "Leslie", "Margaret", "Niklaus", "Ole", "Radia", "Tony"]
    static let lastNames = ["Lovelace", "Turing", "Liskov", "Shannon", "Knuth", "Dijkstra", "Allen", "Hopper",
                            "Lamarr", "Sutherland", "Backus", "Johnson", "Lamport", "Hamilton", "Wirth", "Dahl",
                            "Perlman", "Hoare"]
    static let adjectives = ["Silent", "Hidden", "Last", "Bright", "Broken", "Distant", "Golden", "Quiet", "Lost", "Wild"]
    static let nouns = ["River", "Garden", "Machine", "Winter", "Harbor", "Library", "Signal", "Mountain", "Letter", "Engine"]

    /// Writes the store to `path` (through a temporary file, renamed at the end), in the
    /// plain layout or in Core Data's (with its Z_PRIMARYKEY and Z_METADATA). The same
    /// rows and seed give the same rows in either layout.
    @discardableResult
    public static func write(rows: Int, seed: UInt64, to path: String, layout kind: LayoutKind = .plain) throws -> Counts {
        precondition(rows >= 0)
        let temporary = path + ".sample-tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        let layout: any StoreLayout
        if kind == .coredata {
            // Z_METADATA's store UUID from the seed: the same arguments give the same bytes.
            var coreData = CoreDataLayout(model: coreDataModelV1)
            var uuidRandom = SplitMix64(seed: seed ^ 0x5EED)
            let bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: uuidRandom.next()) }
            coreData.storeUUID = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                             bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
            layout = coreData
        } else {
            // As an app's own store: required columns declared NOT NULL.
            layout = PlainLayout(model: modelV1, declaresRequired: true)
        }
        // Names come from the layout, so one generator serves both layouts.
        let q = Database.quote
        let userTable = layout.table(of: "User"), bookTable = layout.table(of: "Book")
        func insert(_ table: EntityTable, _ entity: String, _ attributes: [String]) -> String {
            let columns = [table.keyColumn] + table.insertDefaults.map(\.column) + attributes.map { layout.column(ofAttribute: $0, entity: entity) }
            let values = ["?"] + table.insertDefaults.map(\.value.sqlLiteral) + attributes.map { _ in "?" }
            return "INSERT INTO \(q(table.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        }
        guard case .joinTable(let joinTable, let bookColumn, let userColumn) = layout.storage(ofRelationship: "users", entity: "Book") else {
            preconditionFailure("Book.users is a many-to-many in every layout")
        }
        var random = SplitMix64(seed: seed)
        let userCount = max(1, rows / 20)
        let authorCount = max(1, rows / 8)
        var links = 0
        do {
            let db = try Database(path: temporary, mode: .create)
            try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            try db.transaction {
                for sql in layout.schemaSQL() { try db.execute(sql) }
                let user = try db.prepare(insert(userTable, "User", ["userId", "name"]))
                for id in 1...userCount {
                    let name = firstNames[random.below(firstNames.count)] + " " + lastNames[random.below(lastNames.count)]
                    try user.run([.integer(Int64(id)), .integer(Int64(1000 + id)), .text(name)])
                }
                let book = try db.prepare(insert(bookTable, "Book", ["title", "authorName", "fileURL", "published", "price"]))
                let link = try db.prepare("INSERT INTO \(q(joinTable)) (\(q(bookColumn)), \(q(userColumn))) VALUES (?, ?)")
                for id in 1...max(1, rows) where rows > 0 {
                    let title = adjectives[random.below(adjectives.count)] + " " + nouns[random.below(nouns.count)] + " \(id)"
                    let authorIndex = random.below(authorCount)
                    let author: SQLValue = random.below(100) < 5 ? .null
                        : .text(firstNames[authorIndex % firstNames.count] + " " + lastNames[(authorIndex / firstNames.count) % lastNames.count]
                                + (authorIndex >= firstNames.count * lastNames.count ? " \(authorIndex / (firstNames.count * lastNames.count) + 1)" : ""))
                    let file: SQLValue = random.below(100) < 2 ? .null : .text("file:///library/books/\(id).epub")
                    // Published between 1950 and 2024, in whole seconds since 1970.
                    let published = Double(-631_152_000 + random.below(2_366_841_600))
                    let price: SQLValue = random.below(100) < 10 ? .null : .real(Double(99 + random.below(9_900)) / 100)
                    try book.run([.integer(Int64(id)), .text(title), author, file, .real(published - layout.dateEpoch), price])
                    var users = Set<Int>()
                    for _ in 0..<random.below(4) { users.insert(1 + random.below(userCount)) }
                    for u in users.sorted() {
                        try link.run([.integer(Int64(id)), .integer(Int64(u))])
                        links += 1
                    }
                }
                try layout.finish(db)
            }
        }
        guard rename(temporary, path) == 0 else {
            throw StoreError(path: path, code: 0, message: "cannot move the sample into place: \(String(cString: strerror(errno)))")
        }
        return Counts(books: rows, users: userCount, links: links)
    }
}
