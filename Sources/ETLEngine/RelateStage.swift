import Foundation
import ETLStore
import ETLModel
import ETLPipeline

/// The second pass (Core Data's createRelationshipsForDestinationInstance): for every
/// association of a mapping, evaluates the mapping's relationship expressions and writes
/// the links, chunked like the create stage.
///
/// Associations are visited in (destination, source, item) order. A to-one is set by the
/// first association that gives it a value (`… IS NULL` guards every update), so with
/// uniqueBy the lowest source key decides; to-many links are the union over all
/// associations of the destination row.
struct RelateStage {
    let context: StepContext
    let index: Int
    var mapping: MappingPlan { context.plan.mappings[index] }

    struct Association { var destination: Int64; var source: Int64; var item: Int64 }

    struct Input {
        var associations: [Association]
        var sources: [Int64: [Value]]
        var items: [Int64: [Value]]
    }

    /// Per association, per relationship, the destination keys to link.
    struct Output {
        var links: [(destination: Int64, relationship: Int, targets: [Int64])]
        var count: Int
    }

    func run() throws {
        let mapping = self.mapping
        guard !mapping.relationships.isEmpty else { return }
        let started = Date()
        let plan = context.plan
        let sourcePaths = mapping.relatePaths.filter { $0.root == .source }
        let itemPaths = mapping.relatePaths.filter { $0.root == .item }
        let reader = try SourceReader(query: SourceQuery(layout: plan.sourceLayout, entity: mapping.sourceEntity,
                                                         paths: sourcePaths.map(\.segments)), database: context.source)
        let itemReader = try mapping.itemEntity.map {
            try SourceReader(query: SourceQuery(layout: plan.sourceLayout, entity: $0, paths: itemPaths.map(\.segments)),
                             database: context.source)
        }
        let slotSources: [(PathRoot, Int)] = mapping.relatePaths.map { path in
            path.root == .source ? (.source, sourcePaths.firstIndex(of: path)!) : (.item, itemPaths.firstIndex(of: path)!)
        }
        let work = try Database(path: context.workPath, mode: .readOnly)
        let total = Int(try context.destination.scalarInt("SELECT count(*) FROM work.association WHERE mapping = \(index)"))
        context.event(.started, .relate, mapping: mapping.name, total: total)

        let scan = try work.prepare("""
            SELECT destination, source, item FROM association
            WHERE mapping = \(index) AND (destination, source, item) > (?, ?, ?)
            ORDER BY destination, source, item LIMIT ?
            """)
        let mappingIndex = Dictionary(uniqueKeysWithValues: plan.mappings.enumerated().map { ($1.name, $0) })
        let lookups = LookupPool(path: context.workPath, mappingIndex: mappingIndex)
        let writers = try mapping.relationships.map { try LinkWriter(assignment: $0, entity: mapping.destinationEntity, context: context) }

        var last = Association(destination: .min, source: .min, item: .min)
        var done = 0
        let chunkSize = context.chunkSize
        try ChunkPipeline<Input, Output>.run(
            workers: context.workers, maxInFlight: context.workers + 2,
            produce: {
                try scan.bind([.integer(last.destination), .integer(last.source), .integer(last.item), .integer(Int64(chunkSize))])
                var associations: [Association] = []
                while try scan.step() {
                    associations.append(Association(destination: scan.int64(0), source: scan.int64(1), item: scan.int64(2)))
                }
                scan.reset()
                guard let end = associations.last else { return nil }
                last = end
                let sources = try reader.fetch(keys: Array(Set(associations.map(\.source))))
                let items = try itemReader?.fetch(keys: Array(Set(associations.map(\.item)))) ?? [:]
                return Input(associations: associations, sources: sources, items: items)
            },
            transform: { input in
                try lookups.with { lookup in
                    try Self.transform(input, mapping: mapping, slotSources: slotSources, lookup: lookup)
                }
            },
            consume: { output in
                var linked = 0
                try context.destination.transaction {
                    for link in output.links {
                        linked += try writers[link.relationship].write(from: link.destination, to: link.targets)
                    }
                }
                context.counters[index].related += linked
                done += output.count
                context.event(.advanced, .relate, mapping: mapping.name, done: done, total: total)
            })
        context.counters[index].seconds += Date().timeIntervalSince(started)
        context.event(.finished, .relate, mapping: mapping.name, done: done, total: total)
    }

    static func transform(_ input: Input, mapping: MappingPlan, slotSources: [(PathRoot, Int)],
                          lookup: @escaping (String, [Int64]) throws -> [Int64]) throws -> Output {
        var output = Output(links: [], count: input.associations.count)
        for association in input.associations {
            guard let source = input.sources[association.source] else {
                throw RowFailure(key: association.source, expression: "", reason: "the source row disappeared during the run")
            }
            let item = association.item == WorkArea.noItem ? nil : input.items[association.item]
            let slots = CreateStage.slots(slotSources, source: source, item: item)
            let context = EvaluationContext(slots: slots, lookup: lookup)
            for (r, assignment) in mapping.relationships.enumerated() {
                let targets: [Int64]
                switch try CreateStage.evaluate(assignment.expression, context, key: association.source) {
                case .row(let key): targets = [key]
                case .rows(let keys): targets = keys
                default: targets = []
                }
                if !targets.isEmpty {
                    output.links.append((association.destination, r, targets))
                }
            }
        }
        return output
    }
}

/// Read-only connections to the work database for the workers' destination() lookups:
/// one per concurrent worker, reused across chunks.
final class LookupPool: @unchecked Sendable {
    private let path: String
    private let mappingIndex: [String: Int]
    private let lock = NSLock()
    private var idle: [Statement] = []
    // Statements keep their connection alive through `database`; keep both.
    private var connections: [Database] = []

    init(path: String, mappingIndex: [String: Int]) {
        self.path = path
        self.mappingIndex = mappingIndex
    }

    func with<T>(_ body: (@escaping (String, [Int64]) throws -> [Int64]) throws -> T) throws -> T {
        let statement = try take()
        defer { give(statement) }
        let mappingIndex = self.mappingIndex
        let transfer = UnsafeTransfer(statement)
        return try body { mapping, sources in
            let statement = transfer.value
            var result: [Int64] = []
            var seen = Set<Int64>()
            let index = Int64(mappingIndex[mapping] ?? -1)
            for source in sources {
                try statement.bind([.integer(index), .integer(source)])
                defer { statement.reset() }
                while try statement.step() {
                    let key = statement.int64(0)
                    if seen.insert(key).inserted { result.append(key) }
                }
            }
            return result
        }
    }

    private func take() throws -> Statement {
        lock.lock()
        if let statement = idle.popLast() { lock.unlock(); return statement }
        lock.unlock()
        let database = try Database(path: path, mode: .readOnly)
        let statement = try database.prepare(
            "SELECT destination FROM association WHERE mapping = ? AND source = ? ORDER BY destination")
        lock.lock()
        connections.append(database)
        lock.unlock()
        return statement
    }

    private func give(_ statement: Statement) {
        lock.lock()
        idle.append(statement)
        lock.unlock()
    }
}

/// Writes the links of one relationship, wherever the layout stores them.
struct LinkWriter {
    let statement: Statement
    let destination: Database

    init(assignment: RelationshipAssignment, entity: String, context: StepContext) throws {
        let layout = context.plan.destinationLayout
        let q = Database.quote
        let r = assignment.relationship
        destination = context.destination
        switch layout.storage(ofRelationship: r.name, entity: entity) {
        case .foreignKey(let table, let column):
            // This row's own column: set it to the target unless already set.
            let key = layout.table(of: entity).keyColumn
            statement = try destination.prepare("UPDATE \(q(table)) SET \(q(column)) = ?2 WHERE \(q(key)) = ?1 AND \(q(column)) IS NULL")
        case .inverseForeignKey(let table, let column):
            // The target's column points back at this row.
            let key = layout.table(of: r.destination).keyColumn
            statement = try destination.prepare("UPDATE \(q(table)) SET \(q(column)) = ?1 WHERE \(q(key)) = ?2 AND \(q(column)) IS NULL")
        case .joinTable(let table, let own, let other):
            statement = try destination.prepare("INSERT OR IGNORE INTO \(q(table)) (\(q(own)), \(q(other))) VALUES (?1, ?2)")
        }
    }

    /// Links `row` to each target; returns the number of links actually made.
    func write(from row: Int64, to targets: [Int64]) throws -> Int {
        var made = 0
        for target in targets {
            try statement.run([.integer(row), .integer(target)])
            made += destination.changes
        }
        return made
    }
}
