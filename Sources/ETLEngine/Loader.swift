import ETLStore
import ETLModel
import ETLPipeline

/// The load stage of one entity mapping: the single writer. Inserts a chunk's rows in
/// one transaction, handing out keys in load order, deduplicating by uniqueBy key and
/// recording each source row's association. Prepared statements live as long as the stage.
final class Loader {
    private let context: StepContext
    private let index: Int
    private let table: String
    private let defaults: [SQLValue]
    private let insert: Statement
    private let associate: Statement
    private let findUnique: Statement
    private let addUnique: Statement

    init(context: StepContext, index: Int) throws {
        self.context = context
        self.index = index
        let layout = context.plan.destinationLayout
        let mapping = context.plan.mappings[index]
        let destination = layout.table(of: mapping.destinationEntity)
        let q = Database.quote
        table = destination.name
        defaults = destination.insertDefaults.map(\.value)
        let columns = [destination.keyColumn] + destination.insertDefaults.map(\.column)
            + mapping.attributes.map { layout.column(ofAttribute: $0.attribute.name, entity: mapping.destinationEntity) }
        let db = context.destination
        insert = try db.prepare("INSERT INTO \(q(table)) (" + columns.map(q).joined(separator: ", ") + ") VALUES ("
                                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        associate = try db.prepare("INSERT INTO work.association (mapping, destination, source, item) VALUES (\(index), ?, ?, ?)")
        findUnique = try db.prepare("SELECT destination FROM work.unique_key WHERE mapping = \(index) AND key = ?")
        addUnique = try db.prepare("INSERT INTO work.unique_key (mapping, key, destination) VALUES (\(index), ?, ?)")
    }

    func load(_ result: Transformer.Result) throws {
        try context.destination.transaction {
            for row in result.rows { try load(row) }
        }
        context.counters[index].read += result.read
        context.counters[index].filtered += result.filtered
        context.counters[index].associated += result.rows.count
    }

    private func load(_ row: Transformer.NewRow) throws {
        if let unique = row.unique {
            try findUnique.bind([unique])
            let existing = try findUnique.step() ? findUnique.int64(0) : nil
            findUnique.reset()
            if let existing {
                try associate.run([.integer(existing), .integer(row.sourceKey), .integer(row.item)])
                return
            }
        }
        let key = try context.allocateKey(table: table)
        try insert.run([.integer(key)] + defaults + row.values)
        if let unique = row.unique {
            try addUnique.run([unique, .integer(key)])
        }
        try associate.run([.integer(key), .integer(row.sourceKey), .integer(row.item)])
        context.counters[index].written += 1
    }
}
