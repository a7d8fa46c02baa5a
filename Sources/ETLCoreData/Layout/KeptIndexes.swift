import Foundation
import ETLStore
import ETLModel

/// The indexes of the migrated store a Core Data migration keeps (facts §4.1): SQLite keeps
/// an index, under its name, when its table or columns are renamed, and Core Data drops none,
/// so its result has every index of the source on a table and columns that survive the hop
/// (older names on the same columns, join-table leftovers of §1.4, per-sub-entity copies)
/// beside the model's own (e.g. 59 against 47).
///
///     var layout = CoreDataLayout(model: target)
///     try layout.keepIndexes(of: sourceStore, laidOutAs: sourceLayout)
///
/// A column survives when the property it stores does: the same entity (by name, or the one
/// whose renaming identifier names it) and the same property (likewise), or the same
/// relationship's side of a join table, or `Z_PK`/`Z_ENT`/`Z_OPT`. The index is written on the
/// destination's names, each column with the collation and order the source gave it. Not kept:
/// UNIQUE indexes (a constraint the target model may have dropped would refuse rows Core Data
/// accepts), partial and expression indexes (Core Data writes none), an index whose name the
/// model's own indexes use, and one on a column that does not survive.
extension CoreDataLayout {
    public mutating func keepIndexes(of source: Database, laidOutAs sourceLayout: CoreDataLayout) throws {
        var taken = Set(schemaSQL().compactMap(Self.indexName).map { $0.uppercased() })
        var kept: [String] = []
        let rows = try source.rows("""
            SELECT name, tbl_name, sql FROM sqlite_schema
            WHERE type = 'index' AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY tbl_name, name
            """)
        for row in rows {
            guard case .text(let name) = row[0], case .text(let table) = row[1], case .text(let sql) = row[2],
                  !sql.uppercased().hasPrefix("CREATE UNIQUE"), !taken.contains(name.uppercased()),
                  let terms = Self.indexTerms(sql) else { continue }
            var destinationTable: String?
            var columns: [String] = []
            for term in terms {
                guard let place = sourceLayout.property(storedIn: term.column, table: table),
                      let mapped = self.column(of: place, from: sourceLayout.model),
                      destinationTable == nil || destinationTable == mapped.table else { break }
                destinationTable = mapped.table
                columns.append(Self.sqlName(mapped.column) + term.suffix)
            }
            guard let destinationTable, columns.count == terms.count else { continue }
            taken.insert(name.uppercased())
            kept.append("CREATE INDEX \(Self.sqlName(name)) ON \(Self.sqlName(destinationTable)) (\(columns.joined(separator: ", ")))")
        }
        keptIndexSQL = kept
    }

    /// What a column of a table stores, in this layout's model.
    enum StoredProperty: Equatable {
        /// `Z_PK`, `Z_ENT` or `Z_OPT` of the table of `entity`.
        case fixed(entity: String, column: String)
        /// The column of an attribute or to-one (`role` ""), the destination's `Z_ENT` beside a
        /// to-one ("entity") or its `Z_FOK_` ("order").
        case property(entity: String, name: String, role: String)
        /// The column of a join table holding the key of the entity `relationship` belongs to
        /// ("own"), of its destination ("other"), or ordering the destinations ("order").
        case join(entity: String, relationship: String, role: String)
    }

    func property(storedIn column: String, table: String) -> StoredProperty? {
        let c = column.uppercased(), t = table.uppercased()
        if let root = names.tables.first(where: { $0.value.uppercased() == t })?.key {
            if CoreDataNames.fixedColumns.contains(c) { return .fixed(entity: root, column: c) }
            for (kind, map) in [("", names.columns), ("entity", names.entityColumns), ("order", names.orderColumns)] {
                guard let key = map.first(where: { $0.value.uppercased() == c && model.root(of: Self.split($0.key).entity) == root })?.key else { continue }
                let (entity, name) = Self.split(key)
                return .property(entity: entity, name: name, role: kind)
            }
            return nil
        }
        // Both sides of a join table name it: the side with the smaller key, so the choice is stable.
        for (key, side) in names.joins.sorted(by: { $0.key < $1.key }) where side.table.uppercased() == t {
            let (entity, name) = Self.split(key)
            if side.own.uppercased() == c { return .join(entity: entity, relationship: name, role: "own") }
            if side.other.uppercased() == c { return .join(entity: entity, relationship: name, role: "other") }
            if side.order?.uppercased() == c { return .join(entity: entity, relationship: name, role: "order") }
        }
        return nil
    }

    /// Where `place` (of `sourceModel`) is stored in this layout, when it survives the hop.
    func column(of place: StoredProperty, from sourceModel: Model) -> (table: String, column: String)? {
        func entity(_ name: String) -> String? {
            if model.entity(named: name) != nil { return name }
            return model.entities.first { $0.renamingIdentifier == name }?.name
        }
        func property(_ name: String, of entity: String) -> String? {
            let lineage = model.lineage(of: entity)
            let all = lineage.flatMap { $0.attributes.map { ($0.name, $0.renamingIdentifier) } + $0.relationships.map { ($0.name, $0.renamingIdentifier) } }
            return all.first { $0.0 == name }?.0 ?? all.first { $0.1 == name }?.0
        }
        switch place {
        case .fixed(let sourceEntity, let column):
            guard let e = entity(sourceEntity) else { return nil }
            return (table(of: e).name, column)
        case .property(let sourceEntity, let name, let role):
            guard let e = entity(sourceEntity), let p = property(name, of: e) else { return nil }
            let table = table(of: e).name
            if model.attribute(p, of: e) != nil {
                return role.isEmpty ? (table, column(ofAttribute: p, entity: e)) : nil
            }
            guard let r = model.relationship(p, of: e), !r.isToMany else { return nil }
            let key = "\(CoreDataNames.declaring(p, from: e, model)).\(p)"
            let stored = role == "entity" ? names.entityColumns[key] : role == "order" ? names.orderColumns[key] : names.columns[key]
            return stored.map { (table, $0) }
        case .join(let sourceEntity, let name, let role):
            guard let e = entity(sourceEntity), let p = property(name, of: e),
                  let side = names.joins["\(CoreDataNames.declaring(p, from: e, model)).\(p)"] else { return nil }
            let stored = role == "own" ? side.own : role == "other" ? side.other : side.order
            return stored.map { (side.table, $0) }
        }
    }

    static func split(_ key: String) -> (entity: String, name: String) {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        return (parts[0], parts.count > 1 ? parts[1] : "")
    }

    /// The name of the index a `CREATE [UNIQUE] INDEX` statement of ours makes.
    static func indexName(_ sql: String) -> String? {
        for prefix in ["CREATE INDEX ", "CREATE UNIQUE INDEX "] where sql.hasPrefix(prefix) {
            let rest = sql.dropFirst(prefix.count)
            guard let end = rest.range(of: " ON ") else { return nil }
            let name = String(rest[..<end.lowerBound])
            return name.hasPrefix("\"") ? String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"") : name
        }
        return nil
    }

    /// The indexed columns of a `CREATE INDEX … ON table (a COLLATE BINARY ASC, "b")`, each
    /// with what follows its name; nil for a partial index or one on an expression.
    static func indexTerms(_ sql: String) -> [(column: String, suffix: String)]? {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close,
              sql[sql.index(after: close)...].allSatisfy(\.isWhitespace) else { return nil }
        let list = sql[sql.index(after: open)..<close]
        guard !list.contains("(") else { return nil }
        var terms: [(String, String)] = []
        for part in list.split(separator: ",") {
            let text = part.trimmingCharacters(in: .whitespaces)
            let column: String, rest: Substring
            if let quote = text.first, "\"`[".contains(quote) {
                let closing: Character = quote == "[" ? "]" : quote
                guard let end = text.dropFirst().firstIndex(of: closing) else { return nil }
                column = String(text[text.index(after: text.startIndex)..<end])
                rest = text[text.index(after: end)...]
            } else {
                let end = text.firstIndex(where: \.isWhitespace) ?? text.endIndex
                column = String(text[..<end])
                rest = text[end...]
            }
            guard !column.isEmpty else { return nil }
            terms.append((column, rest.isEmpty ? "" : " " + rest.trimmingCharacters(in: .whitespaces)))
        }
        return terms.isEmpty ? nil : terms
    }
}
