import ETLStore
import ETLModel

/// Where every part of a model lives in a Core Data store: entity numbers, tables, columns,
/// join tables. Made either by Core Data's naming conventions (a new store) or by reading
/// an existing store (`Z_PRIMARYKEY` and the real tables and columns, so that a digit Core
/// Data appended to a colliding name is found rather than guessed).
///
/// Conventions (see docs/coredata-sqlite-layout.md of the shared folder):
/// - entity table `Z<ROOT>`; attribute and to-one columns `Z<NAME>`, upper-cased. All entities
///   of one inheritance tree share the table and one column namespace: when two properties
///   would get the same column, the first (entities in number order, attributes before
///   relationships, declaration order) keeps the name and the next ones get 1, 2, …;
/// - a to-one to an entity that has sub-entities gets a second column `Z<n>_<NAME>` holding the
///   destination row's `Z_ENT` (n: the destination entity's number — a guess, the stores seen
///   only show the shape `Z9_VALUE`);
/// - the to-one side of an ordered to-many gets an ordering column `Z_FOK_<NAME>`;
/// - a many-to-many `A.r ↔ B.s` is a join table `Z_<n(A)><R>` named by the relationship
///   declared on the entity whose name sorts first, case-insensitively (facts §1.2: 544/544
///   pairs; `Z_1SONGS` for Collection ↔ Song). Both on one entity (self-referencing), no rule
///   of the model fits the stores: the source store's choice is kept
///   (`adoptSelfReferencingJoins`), a template's is read from it, else the relationship whose
///   name sorts last names it (88/88 tables Core Data's migrations created, DuckDuckGo's
///   `Z_1FAVORITES` for `favorites` ↔ `favoriteFolders`). Each column takes an entity number
///   and the name of the relationship pointing *at* that entity, and holds that entity's
///   `Z_PK`: `Z_1COLLECTIONS` (Collection's key), `Z_4SONGS` (Song's key). The column named by
///   the non-naming relationship comes first, and is the primary key's first (§1.1). Two
///   many-to-many relationships of different entities with the same name and destination
///   would give one column name: the one declared on the entity whose name sorts first keeps
///   it, the next gets `1`, `2`, … (§1.3: `Z_24USERS` for Reaction.users, `Z_24USERS1` for
///   SystemMessage.users). An ordered side adds `Z_FOK_<column without Z_>`, in key-column order.
///   A to-many without inverse: table `Z_<n><REL>`, columns `Z_<n><ENTITY>` (this side — a
///   guess) and `Z_<m><REL>` (the destination).
struct CoreDataNames: Sendable, Equatable {
    struct JoinTable: Sendable, Equatable {
        var name: String
        /// The table-naming side's key column (first in the primary key).
        var firstColumn: String
        var secondColumn: String
        /// Ordering columns (`Z_FOK_…`) of the ordered sides.
        var orderColumns: [String]
        /// The column named by the relationship that names the table, which Core Data's index
        /// `<table>_<column>_INDEX` leads with, whatever the columns' physical order (facts §1.4).
        var namingColumn: String
        var otherColumn: String
    }

    struct JoinSide: Sendable, Equatable {
        var table: String
        /// Holds the key of the entity this side belongs to.
        var own: String
        /// Holds the key of the destination.
        var other: String
        /// Ordering of the destinations within one owner, when this side is ordered.
        var order: String?
    }

    static let bookkeepingTables: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
    static let fixedColumns: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

    /// Entity name → `Z_ENT`.
    var numbers: [String: Int] = [:]
    /// Root entity → table.
    var tables: [String: String] = [:]
    /// "Entity.property" (the declaring entity) → column, for attributes and to-ones.
    var columns: [String: String] = [:]
    /// "Entity.toOne" → the column holding the destination's `Z_ENT`.
    var entityColumns: [String: String] = [:]
    /// "Entity.toOne" → the `Z_FOK_` column ordering this row within its owner's ordered to-many.
    var orderColumns: [String: String] = [:]
    /// "Entity.toMany" (the declaring entity) → its side of a join table.
    var joins: [String: JoinSide] = [:]
    var joinTables: [JoinTable] = []

    // MARK: Shared walk of the model

    /// One column a property of an inheritance tree needs.
    struct Claim {
        var entity: String
        var property: String
        var relationship: Relationship?
        var base: String
        var key: String { "\(entity).\(property)" }
    }

    static func columnBase(_ name: String) -> String { "Z" + name.uppercased() }

    static func roots(_ model: Model, _ numbers: [String: Int]) -> [Entity] {
        CoreDataEntityNumbers.ordered(model, numbers).filter { $0.parent == nil }
    }

    /// The columns the entities of `root`'s tree claim, in allocation order.
    static func claims(root: String, _ model: Model, _ numbers: [String: Int]) -> [Claim] {
        let members = model.descendants(of: root).sorted { (numbers[$0] ?? Int.max, $0) < (numbers[$1] ?? Int.max, $1) }
        var claims: [Claim] = []
        for member in members {
            guard let entity = model.entity(named: member) else { continue }
            for a in entity.attributes {
                claims.append(Claim(entity: member, property: a.name, relationship: nil, base: columnBase(a.name)))
            }
            for r in entity.relationships where !r.isToMany {
                claims.append(Claim(entity: member, property: r.name, relationship: r, base: columnBase(r.name)))
            }
        }
        return claims
    }

    /// The entity of `entity`'s lineage that declares `property`.
    static func declaring(_ property: String, from entity: String, _ model: Model) -> String {
        model.lineage(of: entity).first { e in
            e.attributes.contains { $0.name == property } || e.relationships.contains { $0.name == property }
        }?.name ?? entity
    }

    /// A to-many whose inverse is to-many too, or that has no inverse: stored in a join table.
    static func usesJoinTable(_ r: Relationship, _ model: Model) -> Bool {
        r.isToMany && (model.inverse(of: r)?.isToMany ?? true)
    }

    /// One many-to-many (or to-many without inverse), seen from its two sides.
    struct Pair {
        var a: String, r: Relationship, nA: Int
        var b: String?, s: Relationship?, nB: Int
        /// The side that names the table (see the conventions above).
        var aNamesTable: Bool
        /// Self-referencing: the first key column is the one named by `r` (not `s`), when a
        /// store's choice says so.
        var firstNamedByR: Bool? = nil
    }

    /// Core Data's name order (entity numbers, join tables): case-insensitive, ties in code-point order.
    static func sortsBefore(_ x: String, _ y: String) -> Bool {
        let (lx, ly) = (x.lowercased(), y.lowercased())
        return lx != ly ? lx < ly : x < y
    }

    /// How a store lays out the join table of a self-referencing pair, which the model cannot
    /// tell (facts §1.2 b), keyed by `selfPairKey`.
    struct SelfJoinChoice: Sendable, Equatable {
        /// The relationship that names the table.
        var namer: String
        /// The relationship naming the first key column.
        var firstColumnNamer: String
    }

    static func selfPairKey(_ entity: String, _ r: String, _ s: String) -> String {
        "\(entity).\([r, s].sorted().joined(separator: "|"))"
    }

    static func pairs(_ model: Model, _ numbers: [String: Int], selfJoins: [String: SelfJoinChoice] = [:]) -> [Pair] {
        var seen = Set<String>()
        var result: [Pair] = []
        for entity in CoreDataEntityNumbers.ordered(model, numbers) {
            for r in entity.relationships where usesJoinTable(r, model) {
                guard seen.insert("\(entity.name).\(r.name)").inserted else { continue }
                let nA = numbers[entity.name] ?? 0
                if let s = model.inverse(of: r) {
                    let b = declaring(s.name, from: r.destination, model)
                    seen.insert("\(b).\(s.name)")
                    let nB = numbers[b] ?? 0
                    var pair = Pair(a: entity.name, r: r, nA: nA, b: b, s: s, nB: nB, aNamesTable: true)
                    if b != entity.name {
                        pair.aNamesTable = sortsBefore(entity.name, b)
                    } else if let choice = selfJoins[selfPairKey(b, r.name, s.name)] {
                        pair.aNamesTable = choice.namer == r.name
                        pair.firstNamedByR = choice.firstColumnNamer == r.name
                    } else {
                        pair.aNamesTable = !sortsBefore(r.name, s.name)
                    }
                    result.append(pair)
                } else {
                    result.append(Pair(a: entity.name, r: r, nA: nA, b: nil, s: nil, nB: numbers[r.destination] ?? 0, aNamesTable: true))
                }
            }
        }
        return result
    }

    /// `name`, or `name1`, `name2`, … whichever is free first.
    static func unique(_ name: String, _ used: inout Set<String>) -> String {
        var candidate = name
        var n = 1
        while used.contains(candidate) {
            candidate = name + String(n)
            n += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// Records both sides of a join table.
    mutating func addJoin(_ pair: Pair, table: String, colA: String, colB: String, orderA: String?, orderB: String?) {
        // orderB orders the B rows within one A (A.r is ordered); orderA the reverse.
        joins["\(pair.a).\(pair.r.name)"] = JoinSide(table: table, own: colA, other: colB, order: orderB)
        if let b = pair.b, let s = pair.s, "\(b).\(s.name)" != "\(pair.a).\(pair.r.name)" {
            joins["\(b).\(s.name)"] = JoinSide(table: table, own: colB, other: colA, order: orderA)
        }
        // colA is named by s, colB by r; the non-naming relationship's column comes first.
        let aFirst = pair.firstNamedByR.map { !$0 } ?? pair.aNamesTable
        joinTables.append(JoinTable(name: table, firstColumn: aFirst ? colA : colB,
                                    secondColumn: aFirst ? colB : colA,
                                    orderColumns: (aFirst ? [orderA, orderB] : [orderB, orderA]).compactMap { $0 },
                                    namingColumn: pair.aNamesTable ? colB : colA, otherColumn: pair.aNamesTable ? colA : colB))
    }

    // MARK: A new store

    static func conventional(_ model: Model, selfJoins: [String: SelfJoinChoice] = [:]) -> CoreDataNames {
        var names = CoreDataNames()
        names.numbers = CoreDataEntityNumbers.conventional(for: model)
        var usedTables = bookkeepingTables
        for root in roots(model, names.numbers) {
            names.tables[root.name] = unique(columnBase(root.name), &usedTables)
            var used = fixedColumns
            let claims = claims(root: root.name, model, names.numbers)
            for claim in claims {
                names.columns[claim.key] = unique(claim.base, &used)
            }
            for claim in claims {
                guard let r = claim.relationship, let column = names.columns[claim.key] else { continue }
                let rest = String(column.dropFirst())
                if model.descendants(of: r.destination).count > 1 {
                    names.entityColumns[claim.key] = unique("Z\(names.numbers[r.destination] ?? 0)_" + rest, &used)
                }
                if let inverse = model.inverse(of: r), inverse.isToMany, inverse.isOrdered {
                    names.orderColumns[claim.key] = unique("Z_FOK_" + rest, &used)
                }
            }
        }
        let pairs = pairs(model, names.numbers, selfJoins: selfJoins)
        let suffixes = columnSuffixes(pairs)
        for (index, pair) in pairs.enumerated() {
            let R = pair.r.name.uppercased()
            let table: String
            var colA: String, colB: String
            if let s = pair.s {
                let S = s.name.uppercased()
                table = pair.aNamesTable ? "Z_\(pair.nA)\(R)" : "Z_\(pair.nB)\(S)"
                colA = "Z_\(pair.nA)\(S)"
                colB = "Z_\(pair.nB)\(R)"
            } else {
                table = "Z_\(pair.nA)\(R)"
                colA = "Z_\(pair.nA)\(pair.a.uppercased())"
                colB = "Z_\(pair.nB)\(R)"
            }
            colA += suffixes[index].a
            colB += suffixes[index].b
            var used = Set<String>()
            colA = unique(colA, &used)
            colB = unique(colB, &used)
            let orderB = pair.r.isOrdered ? unique("Z_FOK_" + colB.dropFirst(2), &used) : nil
            let orderA = pair.s?.isOrdered == true ? unique("Z_FOK_" + colA.dropFirst(2), &used) : nil
            names.addJoin(pair, table: unique(table, &usedTables), colA: colA, colB: colB, orderA: orderA, orderB: orderB)
        }
        return names
    }

    /// The digits of §1.3, per pair (for its column named by `s`, and by `r`): a column name
    /// two many-to-many relationships of different entities would both give (the same name
    /// and destination) stays plain for the one declared on the entity whose name sorts first,
    /// and gets `1`, `2`, … for the next ones.
    static func columnSuffixes(_ pairs: [Pair]) -> [(a: String, b: String)] {
        // Each column: its base name, the declaring entity of the relationship naming it, the pair and side.
        var columns: [(base: String, entity: String, pair: Int, isA: Bool)] = []
        for (index, pair) in pairs.enumerated() {
            guard let b = pair.b, let s = pair.s else { continue }
            columns.append(("Z_\(pair.nA)\(s.name.uppercased())", b, index, true))
            columns.append(("Z_\(pair.nB)\(pair.r.name.uppercased())", pair.a, index, false))
        }
        var result = Array(repeating: (a: "", b: ""), count: pairs.count)
        for group in Dictionary(grouping: columns, by: \.base).values where Set(group.map(\.entity)).count > 1 {
            let sorted = group.sorted { sortsBefore($0.entity, $1.entity) }
            for (n, column) in sorted.enumerated() where n > 0 {
                if column.isA { result[column.pair].a = String(n) } else { result[column.pair].b = String(n) }
            }
        }
        return result
    }

    // MARK: An existing store

    /// True when `name` is `base` or `base` followed by digits (case-insensitive).
    static func isBase(_ base: String, ofColumn name: String) -> Bool {
        let upper = name.uppercased()
        guard upper.hasPrefix(base) else { return false }
        return upper.dropFirst(base.count).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Sort key: the bare base first, then by the appended number.
    static func suffixNumber(_ name: String, base: String) -> Int {
        Int(name.dropFirst(base.count)) ?? -1
    }

    /// Reads entity numbers from `Z_PRIMARYKEY` and finds every table and column of `model`
    /// in the store; throws one error listing everything that is missing.
    static func introspect(_ model: Model, store db: Database) throws -> CoreDataNames {
        guard try db.table(named: "Z_PRIMARYKEY") != nil else {
            throw CoreDataStoreError(store: db.path, "has no Z_PRIMARYKEY table: not a store written by Core Data (model \(model.version))")
        }
        var names = CoreDataNames()
        var listed: [String] = []
        for row in try db.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
            guard case .integer(let n) = row[0], case .text(let name) = row[1] else { continue }
            names.numbers[name] = Int(n)
            listed.append(name)
        }
        // Core Data's lightweight migration leaves a renamed entity's Z_NAME at the old name,
        // its renaming identifier (the corpus's SampleModel_V2: LuxuryCar as ExpensiveSportCar).
        for entity in model.entities where names.numbers[entity.name] == nil {
            if let old = entity.renamingIdentifier, model.entity(named: old) == nil, let number = names.numbers[old] {
                names.numbers[entity.name] = number
            }
        }
        let missingEntities = model.entities.map(\.name).filter { names.numbers[$0] == nil }
        guard missingEntities.isEmpty else {
            throw CoreDataStoreError(store: db.path, "entit\(missingEntities.count == 1 ? "y" : "ies") "
                + missingEntities.joined(separator: ", ") + " of model \(model.version) "
                + "\(missingEntities.count == 1 ? "is" : "are") not in Z_PRIMARYKEY (entities there: "
                + (listed.isEmpty ? "none" : listed.joined(separator: ", ")) + ")")
        }

        var problems: [String] = []
        let storeTables = try db.tables()
        var byName: [String: TableInfo] = [:]
        for table in storeTables { byName[table.name.uppercased()] = table }
        var entityTables = Set<String>()

        for root in roots(model, names.numbers) {
            let expected = columnBase(root.name)
            guard let table = byName[expected] else {
                problems.append("entity \(root.name): no table \(expected)")
                continue
            }
            entityTables.insert(table.name.uppercased())
            names.tables[root.name] = table.name
            for fixed in ["Z_PK", "Z_ENT", "Z_OPT"] where table.column(named: fixed) == nil {
                problems.append("entity \(root.name): table \(table.name) has no column \(fixed)")
            }
            let available = table.columns.map(\.name).filter { !fixedColumns.contains($0.uppercased()) }
            var taken = Set<String>()
            let claims = claims(root: root.name, model, names.numbers)
            let claimantsPerBase = Dictionary(grouping: claims, by: \.base).mapValues(\.count)
            // Pass 1: a base only one property claims, present as is.
            for claim in claims where claimantsPerBase[claim.base] == 1 {
                if let column = available.first(where: { $0.uppercased() == claim.base }) {
                    names.columns[claim.key] = column
                    taken.insert(column.uppercased())
                }
            }
            // Pass 2: the others take the free columns of their base in order (bare, 1, 2, …).
            for claim in claims where names.columns[claim.key] == nil {
                let candidates = available
                    .filter { !taken.contains($0.uppercased()) && isBase(claim.base, ofColumn: $0) }
                    .sorted { suffixNumber($0, base: claim.base) < suffixNumber($1, base: claim.base) }
                if let column = candidates.first {
                    names.columns[claim.key] = column
                    taken.insert(column.uppercased())
                } else {
                    let kind = claim.relationship == nil ? "attribute" : "to-one relationship"
                    problems.append("entity \(claim.entity): \(kind) \(claim.property): no column \(claim.base) in \(table.name) (its columns: "
                                    + table.columns.map(\.name).joined(separator: ", ") + ")")
                }
            }
            for claim in claims {
                guard claim.relationship != nil, let column = names.columns[claim.key] else { continue }
                let rest = String(column.uppercased().dropFirst())
                if let extra = available.first(where: { c in
                    let u = c.uppercased()
                    guard !taken.contains(u), u.hasPrefix("Z"), u.hasSuffix("_" + rest) else { return false }
                    let digits = u.dropFirst().dropLast(rest.count + 1)
                    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
                }) {
                    names.entityColumns[claim.key] = extra
                    taken.insert(extra.uppercased())
                }
                if let order = available.first(where: { $0.uppercased() == "Z_FOK_" + rest }) {
                    names.orderColumns[claim.key] = order
                    taken.insert(order.uppercased())
                }
            }
        }

        // Join tables: the store's other tables, matched by their two key columns' names, first
        // among the tables named after either side, then among the rest (a name Core Data
        // chose otherwise, facts §1.2 b).
        let others = storeTables.filter { !entityTables.contains($0.name.uppercased()) && !bookkeepingTables.contains($0.name.uppercased()) }
        var usedJoins = Set<String>()
        for pair in pairs(model, names.numbers) {
            let R = pair.r.name.uppercased()
            let S = pair.s?.name.uppercased()
            let tableBases = ["Z_\(pair.nA)\(R)"] + (S.map { ["Z_\(pair.nB)\($0)"] } ?? [])
            let baseA = S.map { "Z_\(pair.nA)\($0)" }
            let baseB = "Z_\(pair.nB)\(R)"
            var found = false
            let unused = others.filter { !usedJoins.contains($0.name.uppercased()) }
            let named = unused.filter { t in tableBases.contains { isBase($0, ofColumn: t.name) } }
            let candidates = named.sorted { ($0.name.count, $0.name) < ($1.name.count, $1.name) }
                + (pair.s == nil ? [] : unused.filter { t in !named.contains { $0.name == t.name } }.sorted { $0.name < $1.name })
            for table in candidates {
                let keys = table.columns.map(\.name).filter { !$0.uppercased().hasPrefix("Z_FOK_") }
                let matchesB = keys.filter { isBase(baseB, ofColumn: $0) }
                    .sorted { suffixNumber($0, base: baseB) < suffixNumber($1, base: baseB) }
                guard let colB = matchesB.first else { continue }
                let rest = keys.filter { $0 != colB }
                let colA: String?
                if let baseA {
                    colA = rest.filter { isBase(baseA, ofColumn: $0) }
                        .sorted { suffixNumber($0, base: baseA) < suffixNumber($1, base: baseA) }.first
                } else {
                    colA = rest.count == 1 ? rest[0] : nil
                }
                guard let colA else { continue }
                func order(_ column: String) -> String? {
                    table.columns.map(\.name).first { $0.uppercased() == "Z_FOK_" + column.uppercased().dropFirst(2) }
                }
                usedJoins.insert(table.name.uppercased())
                var p = pair
                p.aNamesTable = isBase("Z_\(pair.nA)\(R)", ofColumn: table.name)
                // The key columns in the order the table has them.
                let physical = table.columns.map(\.name)
                p.firstNamedByR = (physical.firstIndex(of: colB) ?? 0) < (physical.firstIndex(of: colA) ?? 0)
                names.addJoin(p, table: table.name, colA: colA, colB: colB, orderA: order(colA), orderB: order(colB))
                found = true
                break
            }
            if !found {
                let side = pair.s.map { "many-to-many \(pair.a).\(pair.r.name) ↔ \(pair.b!).\($0.name)" }
                    ?? "to-many without inverse \(pair.a).\(pair.r.name)"
                let columns = ([baseA ?? "Z_\(pair.nA)…", baseB]).joined(separator: ", ")
                problems.append("\(side): no join table \(tableBases.joined(separator: " or ")) with columns \(columns)")
            }
        }

        guard problems.isEmpty else {
            let tableList = problems.contains { $0.contains("no table") || $0.contains("no join table") }
                ? " (tables in the store: " + storeTables.map(\.name).joined(separator: ", ") + ")" : ""
            throw CoreDataStoreError(store: db.path, "does not hold model \(model.version) as Core Data lays it out: "
                + problems.joined(separator: "; ") + tableList)
        }
        return names
    }

    /// The layout of each self-referencing join table of `model` in this store: which
    /// relationship names it, and which names its first key column.
    func selfJoinChoices(_ model: Model) -> [String: SelfJoinChoice] {
        var choices: [String: SelfJoinChoice] = [:]
        for pair in Self.pairs(model, numbers) {
            guard let b = pair.b, let s = pair.s, b == pair.a, s.name != pair.r.name,
                  let side = joins["\(pair.a).\(pair.r.name)"],
                  let table = joinTables.first(where: { $0.name == side.table }) else { continue }
            let rNames = Self.isBase("Z_\(pair.nA)\(pair.r.name.uppercased())", ofColumn: side.table)
            choices[Self.selfPairKey(b, pair.r.name, s.name)] = SelfJoinChoice(
                namer: rNames ? pair.r.name : s.name,
                firstColumnNamer: table.firstColumn == side.other ? pair.r.name : s.name)
        }
        return choices
    }
}
