import ETLModel
import ETLPipeline

/// A relationship expression that finds rows of several mappings, as the statements that
/// write it: one `destination(s)('Mapping', …)` each, run in order.
///
/// - `union(destinations('A', x), destinations('B', x))` (a to-many whose rows the
///   sub-entities' mappings make): the links of each. Every destination row is made by one
///   mapping, so the parts' links never meet and their order does not matter.
/// - `coalesce(destination('A', x), destination('B', x))` (a to-one into a hierarchy),
///   stored in the owner's own key column: each statement sets the column where no earlier
///   one did (`firstLinkWins`), so the first part that finds a row wins, as coalesce()
///   takes the first non-null. Stored in the target's column (a one-to-one kept on the
///   other side), a later part would link a second row: not split, so not pushed down.
///
/// Any other expression is its own one part (and `relates` pushes down only a lookup).
enum LookupParts {
    static func of(_ assignment: RelationshipAssignment, layout: any StoreLayout, entity: String) -> [ExpressionForm?] {
        let form = assignment.expression.form
        switch form {
        case .union(let parts)?:
            return parts.allSatisfy(isLookup) ? parts : [form]
        case .coalesce(let parts)?:
            guard case .foreignKey = layout.storage(ofRelationship: assignment.relationship.name, entity: entity),
                  parts.allSatisfy(isLookup) else { return [form] }
            return parts
        default:
            return [form]
        }
    }

    private static func isLookup(_ form: ExpressionForm) -> Bool {
        if case .destinations = form { return true }
        return false
    }
}
