import ETLDocument

/// What a run does with a link of its source that names no row (a to-one's key column
/// holding 999 where no row has that key, or `'8x'`; a join table's pair (6, 999)):
/// `"danglingLinks"`, at the top of the pipeline.
///
///     "danglingLinks": "drop"                                   every relationship
///     "danglingLinks": { "Folder.parent": "drop", "*": "reject" } one relationship (source names)
///
/// `reject` (the default): each such link is a reject of the mapping that reads it, with
/// its value, counted in the summary's `rejected`; the row itself is migrated without it.
/// `drop`: the links are left out, counted in the summary's drops and named in its notes.
/// Never dropped without a word.
public struct DanglingLinkRules: Sendable {
    public enum Action: String, CaseIterable, Sendable {
        case reject, drop
    }

    /// For every relationship not named in `relationships`.
    public var action: Action = .reject
    /// `"Entity.relationship"` of a source model → its action, with where it was written.
    public var relationships: [String: (action: Action, cursor: JSONCursor)] = [:]
    /// Where the setting was written (nil: not written, every link is rejected).
    public var cursor: JSONCursor?

    public init() {}

    /// What to do with a link of `relationship`, declared on the source entity `entity` (or
    /// an entity it inherits it from: both names are looked up, the entity's first).
    public func action(entity: String, relationship: String, declaredOn ancestors: [String] = []) -> Action {
        for name in [entity] + ancestors {
            if let rule = relationships["\(name).\(relationship)"] { return rule.action }
        }
        return action
    }

    /// Who says a link is dropped, for the summary: the pipeline's `"danglingLinks"`.
    public static let declaredBy = "as the pipeline's \"danglingLinks\" says"

    static func decode(_ cursor: JSONCursor) throws -> DanglingLinkRules {
        var rules = DanglingLinkRules()
        rules.cursor = cursor
        func action(_ value: JSONCursor) throws -> Action {
            let text = try value.string()
            guard let action = Action(rawValue: text) else {
                throw value.error("unknown value '\(text)'; one of: " + Action.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return action
        }
        if case .object = cursor.node.value {
            for (key, value) in try cursor.anyObject().members {
                if key == "*" {
                    rules.action = try action(value)
                    continue
                }
                let parts = key.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw value.error("'\(key)' is not \"Entity.relationship\" (a relationship of the source) or \"*\" (every other one)")
                }
                rules.relationships[key] = (try action(value), value)
            }
        } else {
            rules.action = try action(cursor)
        }
        return rules
    }
}
