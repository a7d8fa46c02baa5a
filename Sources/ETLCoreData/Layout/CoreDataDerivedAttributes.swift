import Foundation
import ETLStore
import ETLModel

/// Core Data's derived attributes in a store (facts §5): Core Data keeps a derived value up
/// to date with triggers, which call two functions that exist only inside its own
/// connection. The one kind verified on real stores is the count of a to-many whose inverse
/// is a to-one (`pages.@count`, CoreDataPlus's SampleModel2): five triggers, named
/// `Z_DA_<table>_<Entity>_<attribute>_<ROLE>_<EVENT>` on the declaring entity only.
///
/// A writer creates them once its rows are in (`triggerSQL` after `finish`, which computes
/// the values), and registers the two functions on its connection (`registerFunctions`),
/// since any write to those tables afterwards fires them.
public struct CoreDataDerivedCount: Sendable, Equatable {
    /// The entity declaring the derived attribute, and the attribute.
    public let entity: String
    public let attribute: String
    /// The table holding the derived column, and the column.
    let source: String
    let column: String
    /// The table of the counted rows, and their key column pointing at the source row.
    let parameter: String
    let foreignKey: String

    /// The functions Core Data's triggers call: no-ops of five arguments for any other writer.
    public static let functionNames = ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"]

    /// Registers the functions the triggers call, as no-ops, on a connection that writes a store.
    public static func registerFunctions(on db: Database) throws {
        for name in functionNames {
            try db.createFunction(name, arity: 5) { _ in .null }
        }
    }

    /// The derived attributes of `layout`'s model, each a count this type knows, and the
    /// others as "Entity.attribute (derivationExpression '…')" for an error message.
    static func find(in layout: CoreDataLayout) -> (counts: [CoreDataDerivedCount], unknown: [String]) {
        var counts: [CoreDataDerivedCount] = []
        let unknown = derivations(of: layout.model) { entity, attribute, r in
            guard case .inverseForeignKey(let parameter, let foreignKey) = layout.storage(ofRelationship: r.name, entity: entity.name) else { return }
            counts.append(CoreDataDerivedCount(entity: entity.name, attribute: attribute.name, source: layout.table(of: entity.name).name,
                                               column: layout.column(ofAttribute: attribute.name, entity: entity.name),
                                               parameter: parameter, foreignKey: foreignKey))
        }
        return (counts, unknown)
    }

    /// Calls `count` with each derived count of `model` (the entity declaring it, the
    /// attribute, the counted to-many, whose inverse is a to-one); returns the derivations of
    /// any other kind, as "Entity.attribute (derivationExpression '…')".
    static func derivations(of model: Model, _ count: (Entity, Attribute, Relationship) -> Void) -> [String] {
        var unknown: [String] = []
        for entity in model.entities {
            for attribute in entity.attributes {
                guard let derivation = attribute.derivation else { continue }
                let parts = derivation.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, parts[1] == "@count",
                      let r = model.relationship(parts[0], of: entity.name), r.isToMany,
                      let inverse = model.inverse(of: r), !inverse.isToMany else {
                    unknown.append("\(entity.name).\(attribute.name) (derivationExpression '\(derivation)')")
                    continue
                }
                count(entity, attribute, r)
            }
        }
        return unknown
    }

    /// The five triggers, as Core Data writes them (the parameter table's four, then the source's).
    var triggerSQL: [String] {
        let (s, d, p, f, attr) = (source, column, parameter, foreignKey, attribute)
        func affected(_ function: String, _ row: String) -> String {
            "SELECT \(function)('\(s)', Z_ENT, Z_PK, '\(attr)', \(d)) FROM \(s) WHERE Z_PK = \(row);"
        }
        let updated = Self.functionNames[0]
        let name = { (table: String, role: String) in "Z_DA_\(table)_\(entity)_\(attr)_\(role)" }
        return [
            "CREATE TRIGGER \(name(p, "PARAMETER_INSERT")) AFTER INSERT ON \(p) FOR EACH ROW WHEN (NEW.\(f) NOT NULL) BEGIN "
                + "UPDATE \(s) SET \(d) = IFNULL(\(d), 0) + 1 WHERE Z_PK = NEW.\(f); \(affected(updated, "NEW.\(f)")) END",
            "CREATE TRIGGER \(name(p, "PARAMETER_UPDATE_INCREMENT")) AFTER UPDATE OF \(f) ON \(p) FOR EACH ROW WHEN (NEW.\(f) NOT NULL) BEGIN "
                + "UPDATE \(s) SET \(d) = \(d) + 1 WHERE Z_PK = NEW.\(f); \(affected(updated, "NEW.\(f)")) END",
            "CREATE TRIGGER \(name(p, "PARAMETER_UPDATE_DECREMENT")) AFTER UPDATE OF \(f) ON \(p) FOR EACH ROW WHEN (OLD.\(f) NOT NULL) BEGIN "
                + "UPDATE \(s) SET \(d) = \(d) - 1 WHERE Z_PK = OLD.\(f); \(affected(updated, "OLD.\(f)")) END",
            "CREATE TRIGGER \(name(p, "PARAMETER_DELETE")) AFTER DELETE ON \(p) FOR EACH ROW WHEN (OLD.\(f) NOT NULL) BEGIN "
                + "UPDATE \(s) SET \(d) = \(d) - 1 WHERE Z_PK = OLD.\(f); \(affected(updated, "OLD.\(f)")) END",
            "CREATE TRIGGER \(name(s, "SOURCE_INSERT")) AFTER INSERT ON \(s) FOR EACH ROW BEGIN "
                + "UPDATE \(s) SET \(d) = (SELECT IFNULL(COUNT(\(f)), 0) FROM \(p) WHERE \(f) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
                + "\(affected(Self.functionNames[1], "NEW.Z_PK")) END",
        ]
    }

    /// Sets every value of the derived column of rows of `entities` (the declaring entity's
    /// numbers and its sub-entities'): the count of the parameter rows pointing at it, as the
    /// source trigger computes it on insert.
    func computeSQL(entities: [Int]) -> String {
        "UPDATE \(source) SET \(column) = (SELECT count(p.\(foreignKey)) FROM \(parameter) AS p WHERE p.\(foreignKey) = \(source).Z_PK) "
            + "WHERE Z_ENT IN (\(entities.map(String.init).joined(separator: ", "))) AND \(column) IS NOT "
            + "(SELECT count(p.\(foreignKey)) FROM \(parameter) AS p WHERE p.\(foreignKey) = \(source).Z_PK)"
    }
}
