import ETLModel
import ETLExpression
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
///   takes the first non-null, when each owner row has one source row. Not split (so not
///   pushed down) when it is stored in the target's column (a one-to-one kept on the other
///   side: a later part would link a second row), or when the owner rows are grouped by a
///   `uniqueBy` (row by row the first source row whose coalesce() finds a row wins, whichever
///   part found it; split, the first part's rows would win).
///
/// Any other expression is its own one part (and `relates` pushes down only a lookup).
enum LookupParts {
    /// - Parameter grouped: the owner's rows are grouped by a `uniqueBy` (several source rows each).
    static func of(_ assignment: RelationshipAssignment, layout: any StoreLayout, entity: String, grouped: Bool) -> [ExpressionForm?] {
        let form = assignment.expression.form
        switch form {
        case .union(let parts)?:
            return parts.allSatisfy(isLookup) ? parts : [form]
        case .coalesce(let parts)?:
            guard !grouped, case .foreignKey = layout.storage(ofRelationship: assignment.relationship.name, entity: entity),
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
