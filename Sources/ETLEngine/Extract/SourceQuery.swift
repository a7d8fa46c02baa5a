import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Reads rows of one source entity together with the values of the key paths a mapping's
/// expressions use: one SELECT, with a LEFT JOIN per to-one hop, for everything scalar;
/// one extra query per to-many path, for a whole chunk of rows at once.
///
/// The same query serves the create stage (keyset scan: `t0.key > ? ORDER BY key LIMIT n`)
/// and the relate stage and `$item` lookups (rows by a list of keys).
final class SourceQuery {
    /// Where the value of each path comes from, in the order of `paths`.
    enum Slot {
        case column(Int, ExprType)
        case toMany(query: Int)
    }

    struct ToManyQuery {
        /// Column of the main SELECT holding the owner's key.
        var ownerColumn: Int
        var sql: String
    }

    let layout: any StoreLayout
    let entity: String
    let slots: [Slot]
    /// Segments of each slot's path (for messages).
    let paths: [[String]]
    /// Slots of binary attributes that Core Data may store outside the table
    /// (`ExternalBinaryStorage`): their columns hold a marker, not the value.
    let externals: Set<Int>
    let toMany: [ToManyQuery]
    /// What the mapping does with a value the reading rule does not read, by path.
    var unreadable = UnreadableValues()

    /// Whether slot `slot`'s value is made null (and counted) where it cannot be read.
    func nullsUnreadable(slot: Int) -> Bool { unreadable.action(paths[slot]) == .null }
    private let select: String
    private let condition: String?
    private let keyColumn: String
    private let columnCount: Int

    /// - Parameter paths: segments of each path, relative to a row of `entity`
    ///   (empty segments: the row's own key).
    init(layout: any StoreLayout, entity: String, paths: [[String]]) {
        self.layout = layout
        self.entity = entity
        self.paths = paths
        let model = layout.model
        let q = Database.quote
        let table = layout.table(of: entity)
        keyColumn = "t0.\(q(table.keyColumn))"
        condition = table.condition(alias: "t0")

        var columns = [keyColumn]
        var joins: [String] = []
        var aliases: [[String]: (alias: String, entity: String)] = [[]: ("t0", entity)]

        // The alias of the row reached by following to-one `segments`, joining as needed.
        func alias(for segments: [String]) -> (alias: String, entity: String) {
            if let known = aliases[segments] { return known }
            let parent = alias(for: Array(segments.dropLast()))
            let r = model.relationship(segments.last!, of: parent.entity)!
            let target = layout.table(of: r.destination)
            let name = "t\(aliases.count)"
            switch layout.storage(ofRelationship: r.name, entity: parent.entity) {
            case .foreignKey(_, let column):
                joins.append("LEFT JOIN \(q(target.name)) \(name) ON \(name).\(q(target.keyColumn)) = \(parent.alias).\(q(column))")
            case .inverseForeignKey(_, let column):
                joins.append("LEFT JOIN \(q(target.name)) \(name) ON \(name).\(q(column)) = \(parent.alias).\(q(layout.table(of: parent.entity).keyColumn))")
            case .joinTable:
                preconditionFailure("a to-many relationship in the middle of a key path: the planner refuses these")
            }
            aliases[segments] = (name, r.destination)
            return (name, r.destination)
        }

        func addColumn(_ sql: String) -> Int {
            if let existing = columns.firstIndex(of: sql) { return existing }
            columns.append(sql)
            return columns.count - 1
        }

        var slots: [Slot] = []
        var externals = Set<Int>()
        var toMany: [ToManyQuery] = []
        for segments in paths {
            guard let last = segments.last else {
                slots.append(.column(0, .sourceRow(entity)))
                continue
            }
            let owner = alias(for: Array(segments.dropLast()))
            let ownerKey = "\(owner.alias).\(q(layout.table(of: owner.entity).keyColumn))"
            if let attribute = model.attribute(last, of: owner.entity) {
                let column = "\(owner.alias).\(q(layout.column(ofAttribute: attribute.name, entity: owner.entity)))"
                if attribute.allowsExternalStorage && layout.kind == .coredata { externals.insert(slots.count) }
                slots.append(.column(addColumn(column), ExprType(attribute.type)))
                continue
            }
            let r = model.relationship(last, of: owner.entity)!
            let storage = layout.storage(ofRelationship: r.name, entity: owner.entity)
            if !r.isToMany {
                if case .foreignKey(_, let column) = storage {
                    slots.append(.column(addColumn("\(owner.alias).\(q(column))"), .sourceRow(r.destination)))
                } else {
                    let target = alias(for: segments)
                    slots.append(.column(addColumn("\(target.alias).\(q(layout.table(of: r.destination).keyColumn))"), .sourceRow(r.destination)))
                }
                continue
            }
            let ownerColumn = addColumn(ownerKey)
            let sql: String
            switch storage {
            case .joinTable(let table, let own, let other):
                sql = "SELECT \(q(own)), \(q(other)) FROM \(q(table)) WHERE \(q(own)) IN (SELECT value FROM json_each(?)) ORDER BY 1, 2"
            case .inverseForeignKey(let table, let column):
                let key = layout.table(of: r.destination).keyColumn
                sql = "SELECT \(q(column)), \(q(key)) FROM \(q(table)) WHERE \(q(column)) IN (SELECT value FROM json_each(?)) ORDER BY 1, 2"
            case .foreignKey:
                preconditionFailure("a to-many relationship stored as a to-one column")
            }
            slots.append(.toMany(query: toMany.count))
            toMany.append(ToManyQuery(ownerColumn: ownerColumn, sql: sql))
        }
        self.slots = slots
        self.externals = externals
        self.toMany = toMany
        self.columnCount = columns.count
        self.select = "SELECT " + columns.joined(separator: ", ") + " FROM \(q(table.name)) t0 " + joins.joined(separator: " ")
    }

    var countSQL: String {
        "SELECT count(*) FROM \(Database.quote(layout.table(of: entity).name)) t0" + (condition.map { " WHERE \($0)" } ?? "")
    }

    /// The keyset scan: the first `limit` rows from a key on (inclusive), in key order.
    /// Inclusive, so that a scan can start at −2⁶³, a key like any other: an exclusive
    /// bound has no value below it.
    var scanSQL: String {
        select + " WHERE " + (condition.map { "\($0) AND " } ?? "") + "\(keyColumn) >= ? ORDER BY \(keyColumn) LIMIT ?"
    }

    /// Rows whose keys are in a JSON array bound as the only parameter.
    var fetchSQL: String {
        select + " WHERE \(keyColumn) IN (SELECT value FROM json_each(?))"
    }
}
