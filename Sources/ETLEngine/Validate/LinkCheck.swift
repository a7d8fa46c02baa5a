import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// The query that finds links of one relationship column pointing at no row: every link
/// is checked, whatever the layout declares (Core Data declares no foreign keys).
///
/// Each query reads the column in its own order (`ORDER BY`): SQLite then scans the index
/// or primary key that starts with the column, and looks the keys up in the target table
/// in ascending order, page after page, instead of at random. On a million books that
/// made the check of `Book_users.source_id` 3.1 s → 0.4 s.
struct LinkCheck: Hashable {
    let entity: String
    let relationship: String
    /// The table and column holding the link, and the table and key it points at.
    let table: String
    let column: String
    let target: String
    let targetKey: String

    /// The query. With `targetKeys` (see `rangeTestable`), a link is tested against the
    /// range of the target's keys instead of looked up: at a million books the four link
    /// checks went from about 0.5 s each to 0.2 s.
    func sql(targetKeys: ClosedRange<Int64>? = nil) -> String {
        let q = Database.quote
        let link = "t.\(q(column))"
        let exists = targetKeys.map { keys in
            Database.keyBetween(link, "\(keys.lowerBound)", "\(keys.upperBound)")
        } ?? "EXISTS (SELECT 1 FROM \(q(target)) x WHERE x.\(q(targetKey)) = \(link))"
        return "SELECT \(link) FROM \(q(table)) t WHERE \(link) IS NOT NULL AND NOT \(exists) ORDER BY \(link) LIMIT 5"
    }

    /// Whether a range of the target's keys can stand for the lookup: the target key is
    /// the table's rowid (unique integers) and the link column has INTEGER affinity (a link
    /// is compared as the lookup compares it). The range itself is `contiguousKeys`.
    func rangeTestable(on db: Database) throws -> Bool {
        guard let rowID = try db.rowIDColumn(ofTable: target), rowID.caseInsensitiveCompare(targetKey) == .orderedSame else { return false }
        let declared = try db.rows("SELECT upper(type) FROM pragma_table_info(?, 'main') WHERE name = ? COLLATE NOCASE",
                                   [.text(table), .text(column)])
        guard case .text(let type)? = declared.first?.first else { return false }
        return type.contains("INT")  // SQLite's first rule of affinity
    }

    /// Every link column of the step's destination, once each.
    /// `all(of:)` of a step, kept in its plan's memo.
    struct MemoKey: PlanMemoKey {
        typealias Value = [LinkCheck]
        let step: Int
        let stepName: String
    }

    static func all(of plan: StepPlan) -> [LinkCheck] {
        let layout = plan.destinationLayout
        var checks: [LinkCheck] = []
        var seen = Set<[String]>()
        for entity in plan.destinationModel.entities {
            for r in plan.destinationModel.relationships(of: entity.name) {
                let target = layout.table(of: r.destination)
                let own = layout.table(of: entity.name)
                var columns: [(table: String, column: String, target: EntityTable)] = []
                switch layout.storage(ofRelationship: r.name, entity: entity.name) {
                case .foreignKey(let table, let column):
                    columns.append((table, column, target))
                case .joinTable(let table, let ownColumn, let otherColumn):
                    columns.append((table, ownColumn, own))
                    columns.append((table, otherColumn, target))
                case .inverseForeignKey:
                    continue  // checked from the side that holds the column
                }
                for c in columns where seen.insert([c.table, c.column, c.target.name]).inserted {
                    checks.append(LinkCheck(entity: entity.name, relationship: r.name, table: c.table, column: c.column,
                                            target: c.target.name, targetKey: c.target.keyColumn))
                }
            }
        }
        return checks
    }

    /// Whether this check already proves a foreign key the table declares
    /// (`pragma_foreign_key_list`: the column, the parent table, the parent's column or
    /// nil for its primary key).
    func covers(table: String, from: String, parent: String, to: String?) -> Bool {
        table == self.table && from == column && parent == target && (to == nil || to == targetKey)
    }
}

/// The link checks of one validation, taken one at a time by both connections: whichever
/// is free takes the next, so that the two cores finish together.
final class LinkCheckQueue: @unchecked Sendable {
    let checks: [LinkCheck]
    /// Whether links are tested against the range of their target's keys where it is
    /// contiguous. Off for a small store: the queries that prove a range cost more there
    /// than the lookups.
    let rangeTests: Bool
    private let lock = NSLock()
    private var next = 0
    /// Per check, the dangling keys it found, once it ran.
    private var found: [[SQLValue]?]
    /// Per target table, its keys when contiguous, once a check asked.
    private var targetKeys: [String: ClosedRange<Int64>?] = [:]

    init(_ checks: [LinkCheck], rangeTests: Bool) {
        self.checks = checks
        self.rangeTests = rangeTests
        found = Array(repeating: nil, count: checks.count)
    }

    /// Runs checks on `database` until none is left to take.
    func drain(on database: Database) throws {
        while let index = take() {
            let check = checks[index]
            let range = try rangeTests && check.rangeTestable(on: database) ? keys(of: check.target, key: check.targetKey, on: database) : nil
            let keys = try database.rows(check.sql(targetKeys: range)).map { $0[0] }
            lock.withLock { found[index] = keys }
        }
    }

    /// The contiguous keys of a target table, counted once (two checks may count at once).
    private func keys(of table: String, key: String, on database: Database) throws -> ClosedRange<Int64>? {
        if let known = lock.withLock({ targetKeys[table] }) { return known }
        let keys = try database.contiguousKeys(ofTable: table, key: key)
        lock.withLock { targetKeys[table] = keys }
        return keys
    }

    private func take() -> Int? {
        lock.withLock {
            guard next < checks.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    /// One problem per check that found dangling links, in the checks' order; once every
    /// connection that drains the queue has returned.
    var problems: [String] {
        lock.withLock {
            zip(checks, found).compactMap { check, keys in
                guard let keys, !keys.isEmpty else { return nil }
                return "\(check.entity).\(check.relationship) links to rows that do not exist (keys \(keys.map(\.sqlLiteral).joined(separator: ", ")))"
            }
        }
    }
}
