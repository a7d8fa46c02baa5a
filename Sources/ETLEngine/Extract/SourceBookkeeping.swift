import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

/// A Core Data source's bookkeeping, checked rather than believed, before a row is read:
/// the entity numbers come from `Z_PRIMARYKEY`, and rows are read by their `Z_ENT`, so a
/// second `Z_PRIMARYKEY` row for an entity would make its rows another entity's (or
/// nobody's), a row whose `Z_ENT` names no entity would be skipped, and a `Z_MAX` below a
/// key would let the app hand out a key that is taken. Each is refused (`badSource`),
/// naming the table, the value and the count.
enum SourceBookkeeping {
    static func check(_ db: Database, path: String, layout: CoreDataLayout) throws {
        var problems: [String] = []
        let model = layout.model
        for row in try db.rows("""
            SELECT Z_NAME, count(*), group_concat(Z_ENT, ', ') FROM (SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY ORDER BY Z_ENT)
            GROUP BY Z_NAME HAVING count(*) > 1 ORDER BY Z_NAME
            """) {
            problems.append("Z_PRIMARYKEY has \(row[1].sqlLiteral) rows for \(row[0].sqlLiteral) (Z_ENT \(row[2].textValue ?? "?")): an entity has one number")
        }
        var primary: [Int64: (superNumber: Int64?, max: Int64?)] = [:]
        for row in try db.rows("SELECT Z_ENT, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY") {
            guard case .integer(let number) = row[0] else { continue }
            primary[number] = (row[1].integerValue, row[2].integerValue)
        }
        for entity in model.entities {
            guard let number = layout.entityNumber(of: entity.name) else { continue }
            let parent = entity.parent.flatMap { layout.entityNumber(of: $0) } ?? 0
            if let found = primary[Int64(number)]?.superNumber, found != Int64(parent) {
                problems.append("Z_PRIMARYKEY row Z_ENT \(number) (\(entity.name)) has Z_SUPER \(found), but its parent's number is \(parent)")
            }
        }
        let q = Database.quote
        for root in model.entities where entity(root, isRootIn: model) {
            let table = layout.table(of: root.name)
            guard let column = table.discriminator?.column, try db.table(named: table.name) != nil else { continue }
            let numbers = model.descendants(of: root.name).compactMap { layout.entityNumber(of: $0) }.map(String.init)
            let stray = try db.rows("""
                SELECT \(q(column)), count(*) FROM \(q(table.name)) WHERE \(q(column)) IS NULL OR \(q(column)) NOT IN (\(numbers.joined(separator: ", ")))
                GROUP BY 1 ORDER BY 1
                """)
            for row in stray {
                problems.append("table \(table.name) has \(row[1].sqlLiteral) row\(row[1].integerValue == 1 ? "" : "s") with \(column) = \(row[0].sqlLiteral), "
                    + "which names no entity of \(root.name)'s (\(numbers.joined(separator: ", "))): they would be read as no entity's")
            }
            guard let number = layout.entityNumber(of: root.name), let zmax = primary[Int64(number)]?.max,
                  let highest = try db.rows("SELECT max(\(q(table.keyColumn))) FROM \(q(table.name))").first?[0].integerValue, highest > zmax else { continue }
            let above = try db.scalarInt("SELECT count(*) FROM \(q(table.name)) WHERE \(q(table.keyColumn)) > ?", [.integer(zmax)])
            problems.append("Z_PRIMARYKEY gives \(root.name) Z_MAX \(zmax), below the highest key of table \(table.name), \(highest) "
                + "(\(above) row\(above == 1 ? "" : "s") above it): the app would hand out keys that are taken")
        }
        guard problems.isEmpty else {
            throw MigrationError.badSource(path: path, reason: "its Core Data bookkeeping does not hold: " + problems.joined(separator: "; ")
                + ". Nothing was read. The store was changed by something other than Core Data: repair it from a backup, or have the app open and save it")
        }
    }

    private static func entity(_ entity: Entity, isRootIn model: Model) -> Bool {
        entity.parent == nil || model.entity(named: entity.parent!) == nil
    }
}

private extension SQLValue {
    var integerValue: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    var textValue: String? { if case .text(let v) = self { return v } else { return nil } }
}
