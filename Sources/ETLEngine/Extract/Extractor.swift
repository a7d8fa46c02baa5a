import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// The extract stage of one entity mapping: reads source rows (and forEach items) with
/// the values of every path the mapping's expressions use, and lays them out in the
/// slot order the compiled expressions expect.
///
/// Runs on the producer thread only: workers never touch a store.
final class Extractor {
    let sources: SourceReader
    let items: SourceReader?
    /// Slot i of the expressions comes from (root, position in that root's query).
    let slotSources: [(PathRoot, Int)]

    /// - Parameter unreadable: what the mapping does with a value the reading rule does not
    ///   read (an item's values by the mapping's `all`: its attributes are another entity's).
    init(layout: any StoreLayout, entity: String, itemEntity: String?, paths: [SourcePath], database: Database,
         unreadable: UnreadableValues = UnreadableValues()) throws {
        let sourcePaths = paths.filter { $0.root == .source }
        let itemPaths = paths.filter { $0.root == .item }
        let query = SourceQuery(layout: layout, entity: entity, paths: sourcePaths.map(\.segments))
        query.unreadable = unreadable
        sources = try SourceReader(query: query, database: database)
        items = try itemEntity.map {
            let query = SourceQuery(layout: layout, entity: $0, paths: itemPaths.map(\.segments))
            query.unreadable = UnreadableValues(all: unreadable.all)
            return try SourceReader(query: query, database: database)
        }
        slotSources = paths.map { path in
            path.root == .source ? (.source, sourcePaths.firstIndex(of: path)!) : (.item, itemPaths.firstIndex(of: path)!)
        }
    }

    func count() throws -> Int { try sources.count() }

    /// The next chunk of the keyset scan, keys from `key` on, with the forEach items its
    /// rows name, or nil when the entity is exhausted.
    func scan(from key: Int64, limit: Int, forEach: CompiledExpression?) throws -> ExtractedChunk? {
        guard let rows = try sources.scan(from: key, limit: limit) else { return nil }
        var chunk = ExtractedChunk(rows: rows, items: [:], slotSources: slotSources)
        if let forEach, let items {
            var keys = Set<Int64>()
            for index in rows.keys.indices {
                let context = EvaluationContext(slots: chunk.slots(row: index, item: nil), lookup: noLookup)
                if case .rows(let list) = try evaluate(forEach, context, key: rows.keys[index]) {
                    keys.formUnion(list)
                }
            }
            (chunk.items, chunk.unreadableItems) = try items.fetchReadable(keys: Array(keys))
        }
        return chunk
    }

    /// Source rows and items by key (the relate stage's reads).
    func fetch(sourceKeys: [Int64], itemKeys: [Int64]) throws -> (sources: [Int64: [Value]], items: [Int64: [Value]]) {
        (try sources.fetch(keys: sourceKeys), try items?.fetch(keys: itemKeys) ?? [:])
    }

    static func slots(_ sources: [(PathRoot, Int)], source: [Value], item: [Value]?) -> [Value] {
        sources.map { root, position in
            root == .source ? source[position] : (item?[position] ?? .null)
        }
    }
}

/// One chunk of source rows as extracted, ready for a worker.
struct ExtractedChunk {
    var rows: SourceRows
    /// forEach items by key.
    var items: [Int64: [Value]]
    /// Items holding a value that cannot be read (`SourceRows.unreadable`): a row × item
    /// reading one is rejected.
    var unreadableItems: [Int64: (path: String, reason: String)] = [:]
    let slotSources: [(PathRoot, Int)]

    /// The expression slots of row `row`, with `item`'s values for `$item` paths.
    func slots(row: Int, item: Int64?) -> [Value] {
        Extractor.slots(slotSources, source: rows.values[row], item: item.flatMap { items[$0] })
    }
}

/// Evaluates one expression for one row, naming the row and the expression on failure.
func evaluate(_ expression: CompiledExpression, _ context: EvaluationContext, key: Int64) throws -> Value {
    do {
        return try expression.evaluate(context)
    } catch {
        throw RowFailure(key: key, expression: expression.text, reason: "\(error)")
    }
}
