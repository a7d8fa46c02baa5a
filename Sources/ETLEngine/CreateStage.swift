import Foundation
import ETLStore
import ETLModel
import ETLPipeline

/// extract → transform → load for one entity mapping: reads source rows in keyset chunks,
/// evaluates the mapping on the worker queues, inserts destination rows and records
/// each source row's association, one transaction per chunk.
struct CreateStage {
    let context: StepContext
    let index: Int
    var mapping: MappingPlan { context.plan.mappings[index] }

    /// One row to insert, computed by a worker.
    struct NewRow {
        var sourceKey: Int64
        var item: Int64
        /// The uniqueBy key; nil without uniqueBy or when the key is null (not deduplicated).
        var unique: SQLValue?
        var values: [SQLValue]
    }

    struct Input {
        var rows: SourceRows
        var items: [Int64: [Value]]
    }

    struct Output {
        var read: Int
        var filtered: Int
        var rows: [NewRow]
    }

    func run() throws {
        let started = Date()
        let mapping = self.mapping
        let plan = context.plan
        let sourcePaths = mapping.createPaths.filter { $0.root == .source }
        let itemPaths = mapping.createPaths.filter { $0.root == .item }
        let reader = try SourceReader(query: SourceQuery(layout: plan.sourceLayout, entity: mapping.sourceEntity,
                                                         paths: sourcePaths.map(\.segments)), database: context.source)
        let itemReader = try mapping.itemEntity.map {
            try SourceReader(query: SourceQuery(layout: plan.sourceLayout, entity: $0, paths: itemPaths.map(\.segments)),
                             database: context.source)
        }
        // Slot i of the mapping's expressions comes from (root, position in that root's query).
        let slotSources: [(PathRoot, Int)] = mapping.createPaths.map { path in
            path.root == .source ? (.source, sourcePaths.firstIndex(of: path)!) : (.item, itemPaths.firstIndex(of: path)!)
        }
        let total = try reader.count()
        context.event(.started, .create, mapping: mapping.name, total: total)

        let destinationTable = plan.destinationLayout.table(of: mapping.destinationEntity)
        let epoch = plan.destinationLayout.dateEpoch
        let q = Database.quote
        var columns = [destinationTable.keyColumn] + destinationTable.insertDefaults.map(\.column)
        columns += mapping.attributes.map { plan.destinationLayout.column(ofAttribute: $0.attribute.name, entity: mapping.destinationEntity) }
        let insert = try context.destination.prepare(
            "INSERT INTO \(q(destinationTable.name)) (" + columns.map(q).joined(separator: ", ") + ") VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        let associate = try context.destination.prepare(
            "INSERT INTO work.association (mapping, destination, source, item) VALUES (\(index), ?, ?, ?)")
        let findUnique = try context.destination.prepare(
            "SELECT destination FROM work.unique_key WHERE mapping = \(index) AND key = ?")
        let addUnique = try context.destination.prepare(
            "INSERT INTO work.unique_key (mapping, key, destination) VALUES (\(index), ?, ?)")

        var lastKey = Int64.min
        var done = 0
        let forEach = mapping.forEach
        let chunkSize = context.chunkSize

        try ChunkPipeline<Input, Output>.run(
            workers: context.workers, maxInFlight: context.workers + 2,
            produce: {
                guard let rows = try reader.scan(after: lastKey, limit: chunkSize) else { return nil }
                lastKey = rows.keys.last!
                var items: [Int64: [Value]] = [:]
                if let forEach, let itemReader {
                    // Items are fetched here, once per chunk, so workers never touch the store.
                    var keys = Set<Int64>()
                    for (i, key) in rows.keys.enumerated() {
                        let slots = Self.slots(slotSources, source: rows.values[i], item: nil)
                        if case .rows(let list) = try Self.evaluate(forEach, EvaluationContext(slots: slots, lookup: noLookup), key: key) {
                            keys.formUnion(list)
                        }
                    }
                    items = try itemReader.fetch(keys: Array(keys))
                }
                return Input(rows: rows, items: items)
            },
            transform: { input in try Self.transform(input, mapping: mapping, slotSources: slotSources, epoch: epoch) },
            consume: { output in
                try context.destination.transaction {
                    for row in output.rows {
                        try load(row, table: destinationTable.name, insert: insert, associate: associate,
                                 findUnique: findUnique, addUnique: addUnique, defaults: destinationTable.insertDefaults.map(\.value))
                    }
                }
                context.counters[index].read += output.read
                context.counters[index].filtered += output.filtered
                context.counters[index].associated += output.rows.count
                done += output.read
                context.event(.advanced, .create, mapping: mapping.name, done: done, total: total)
            })
        context.counters[index].seconds += Date().timeIntervalSince(started)
        context.event(.finished, .create, mapping: mapping.name, done: done, total: total)
    }

    private func load(_ row: NewRow, table: String, insert: Statement, associate: Statement,
                      findUnique: Statement, addUnique: Statement, defaults: [SQLValue]) throws {
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

    static func slots(_ sources: [(PathRoot, Int)], source: [Value], item: [Value]?) -> [Value] {
        sources.map { root, position in
            root == .source ? source[position] : (item?[position] ?? .null)
        }
    }

    static func evaluate(_ expression: CompiledExpression, _ context: EvaluationContext, key: Int64) throws -> Value {
        do {
            return try expression.evaluate(context)
        } catch {
            throw RowFailure(key: key, expression: expression.text, reason: "\(error)")
        }
    }

    /// Runs on a worker: filter, fan-out, uniqueBy and attribute values of a chunk.
    static func transform(_ input: Input, mapping: MappingPlan, slotSources: [(PathRoot, Int)], epoch: Double) throws -> Output {
        var output = Output(read: input.rows.keys.count, filtered: 0, rows: [])
        output.rows.reserveCapacity(input.rows.keys.count)
        for (i, key) in input.rows.keys.enumerated() {
            let sourceValues = input.rows.values[i]
            var items: [Int64?] = [nil]
            if let forEach = mapping.forEach {
                let slots = Self.slots(slotSources, source: sourceValues, item: nil)
                guard case .rows(let list) = try evaluate(forEach, EvaluationContext(slots: slots, lookup: noLookup), key: key) else { continue }
                items = list
            }
            for item in items {
                let context = EvaluationContext(slots: Self.slots(slotSources, source: sourceValues, item: item.flatMap { input.items[$0] }),
                                                lookup: noLookup)
                if let filter = mapping.filter, !(try evaluate(filter, context, key: key).isTrue) {
                    output.filtered += 1
                    continue
                }
                var unique: SQLValue?
                if let uniqueBy = mapping.uniqueBy {
                    let value = try evaluate(uniqueBy, context, key: key)
                    unique = value.isNull ? nil : value.sqlValue
                }
                var values: [SQLValue] = []
                values.reserveCapacity(mapping.attributes.count)
                for assignment in mapping.attributes {
                    switch assignment.source {
                    case .constant(let value): values.append(value)
                    case .expression(let expression):
                        values.append(storedValue(try evaluate(expression, context, key: key), as: assignment.attribute.type, epoch: epoch))
                    }
                }
                output.rows.append(NewRow(sourceKey: key, item: item ?? WorkArea.noItem, unique: unique, values: values))
            }
        }
        return output
    }
}
