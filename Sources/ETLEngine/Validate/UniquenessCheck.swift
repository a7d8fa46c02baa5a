import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Finds rows that break a uniqueness constraint of the destination model (Core Data's
/// `<uniquenessConstraints>`): Core Data's own store has a UNIQUE index for each and would
/// refuse them. Like that index, the check covers the entity's whole table and lets rows
/// with a null in the constraint's properties be (SQLite's UNIQUE treats nulls as distinct).
///
/// Each problem names the entity, the constraint, the values and up to five keys:
/// "entity Folder: 5 rows have name = 'work' (keys 1, 2, 3, 4, 5), but name is unique".
struct UniquenessCheck {
    let plan: StepPlan
    let database: Database

    /// Groups of duplicates shown per constraint.
    static let groupsShown = 3

    func problems() throws -> [String] {
        let layout = plan.destinationLayout
        let model = plan.destinationModel
        let q = Database.quote
        var problems: [String] = []
        for entity in model.entities {
            for constraint in entity.uniquenessConstraints {
                let table = layout.table(of: entity.name)
                var columns: [String] = []
                for property in constraint {
                    if model.attribute(property, of: entity.name) != nil {
                        columns.append(layout.column(ofAttribute: property, entity: entity.name))
                    } else if case .foreignKey(_, let column) = layout.storage(ofRelationship: property, entity: entity.name) {
                        columns.append(column)
                    }
                }
                guard columns.count == constraint.count else { continue }
                let quoted = columns.map(q)
                let groups = """
                    SELECT \(quoted.joined(separator: ", ")), count(*), group_concat(k) FROM (
                      SELECT \(q(table.keyColumn)) AS k, \(quoted.joined(separator: ", ")) FROM \(q(table.name))
                      WHERE \(quoted.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")) ORDER BY k)
                    GROUP BY \(quoted.joined(separator: ", ")) HAVING count(*) > 1 ORDER BY min(k)
                    """
                let rows = try database.rows(groups + " LIMIT \(Self.groupsShown + 1)")
                guard !rows.isEmpty else { continue }
                let total = rows.count > Self.groupsShown ? try database.scalarInt("SELECT count(*) FROM (\(groups))") : Int64(rows.count)
                let shown = rows.prefix(Self.groupsShown).map { row -> String in
                    let values = zip(constraint, row).map { "\($0) = \($1.sqlLiteral)" }.joined(separator: ", ")
                    guard case .integer(let count) = row[constraint.count], case .text(let keys) = row[constraint.count + 1] else { return values }
                    let first = keys.split(separator: ",").prefix(5).joined(separator: ", ")
                    return "\(count) rows have \(values) (keys \(first)\(count > 5 ? ", …" : ""))"
                }
                problems.append("entity \(entity.name): " + shown.joined(separator: "; ")
                    + (total > Int64(Self.groupsShown) ? "; \(total) such groups in all" : "")
                    + ", but the model makes \(constraint.joined(separator: " + ")) unique: deduplicate them (uniqueBy) or filter them out")
            }
        }
        return problems
    }
}
