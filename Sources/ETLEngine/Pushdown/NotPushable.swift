extension PushdownPlan {
    /// Why a step cannot be pushed down (`PushdownPlan.make`), found before any row is read:
    /// each reason with its sentence. The one error the push-down planner throws on purpose;
    /// the strategy (`StrategyDecider`) runs the step row by row for it, and `etl plan` shows
    /// the sentence (`RowByRowReason.untranslatable`).
    enum NotPushable: Error, Equatable {
        // One mapping's own reasons: the sentence follows "mapping NAME ".
        case sharesUniqueByKeys(mapping: String, with: String)
        case forEachWithPolicy(mapping: String)
        case forEachWithUniqueBy(mapping: String)
        case unregisteredPolicy(mapping: String, policy: String)
        case policyWithRelateHook(mapping: String)
        case forEachNotOverSourceRelationship(mapping: String)
        case forEachOverToOneColumn(mapping: String)
        case sharesDestinationTable(mapping: String)

        // A part of a mapping, `what` naming it ("relationship author of mapping Books").
        case noExactSQLForm(what: String, expression: String)
        case attributeWithoutExactSQLForm(entity: String, attribute: String, mapping: String, expression: String)
        case externalStorage(entity: String, attribute: String)
        /// `pairOwner`: the owner is the forEach pair (`$item`), not the source row.
        case notDestinationOfSource(what: String, pairOwner: Bool)
        case toOneToRowsMadeBy(what: String, mapping: String, maker: String)
        case destinationOnRowsMadeBy(what: String, mapping: String, maker: String)
        case sharesStorage(what: String)
        case readsNoRelationship(what: String, name: String)
        case toOneGivenToManyPath(what: String)

        // A policy SQLite would call (`PolicyInSQLite`): what it reads of the source row.
        case policyMappingReadsPath(String)
        case policyReadsExternalStorage(entity: String, attribute: String)
        case policyReadsNoColumn(entity: String, attribute: String)

        /// The mapping whose own reason it is, if it is one mapping's.
        var mapping: String? {
            switch self {
            case .sharesUniqueByKeys(let mapping, _), .forEachWithPolicy(let mapping), .forEachWithUniqueBy(let mapping),
                 .unregisteredPolicy(let mapping, _), .policyWithRelateHook(let mapping), .forEachNotOverSourceRelationship(let mapping),
                 .forEachOverToOneColumn(let mapping), .sharesDestinationTable(let mapping):
                return mapping
            default:
                return nil
            }
        }

        /// What keeps it out of SQLite, after "mapping NAME " when `mapping` is set.
        var detail: String {
            switch self {
            case .sharesUniqueByKeys(_, let other): return "shares its uniqueBy keys with mapping \(other)"
            case .forEachWithPolicy: return "has a forEach and a policy"
            case .forEachWithUniqueBy: return "has a forEach and a uniqueBy"
            case .unregisteredPolicy(_, let policy): return "names the unregistered policy \(policy)"
            case .policyWithRelateHook: return "has a policy with a relate hook"
            case .forEachNotOverSourceRelationship: return "has a forEach that is not $source.relationship"
            case .forEachOverToOneColumn: return "has a forEach over a relationship stored as a to-one column"
            case .sharesDestinationTable: return "shares its destination table with another mapping, so its rows cannot be found by key"
            case .noExactSQLForm(let what, let expression): return "\(what) '\(expression)' has no exact SQL form"
            case .attributeWithoutExactSQLForm(let entity, let attribute, let mapping, let expression):
                return "the expression of \(entity).\(attribute) in mapping \(mapping), '\(expression)', has no exact SQL form"
            case .externalStorage(let entity, let attribute):
                return "\(entity).\(attribute) allows external storage: its values are written row by row"
            case .notDestinationOfSource(let what, let pairOwner):
                return pairOwner ? "\(what) is not destination(s)('Mapping', $source) or ($item)"
                                 : "\(what) is not destination(s)('Mapping', $source) or ($source.relationship)"
            case .toOneToRowsMadeBy(let what, let mapping, let maker): return "\(what) is a to-one to the rows of mapping \(mapping), which \(maker) makes"
            case .destinationOnRowsMadeBy(let what, let mapping, let maker):
                return "\(what) uses destination() on the rows of mapping \(mapping), which \(maker) makes"
            case .sharesStorage(let what): return "\(what) shares its storage with another relationship of the mapping"
            case .readsNoRelationship(let what, let name): return "\(what) reads $source.\(name), which is no relationship"
            case .toOneGivenToManyPath(let what): return "\(what) is a to-one given a to-many path"
            case .policyMappingReadsPath(let path): return "its policy's mapping reads \(path)"
            case .policyReadsExternalStorage(let entity, let attribute):
                return "its policy reads \(entity).\(attribute), which may be stored outside the table"
            case .policyReadsNoColumn(let entity, let attribute): return "its policy reads \(entity).\(attribute), which is not a column of its table"
            }
        }

        /// The reason in words: "mapping Books has a policy with a relate hook".
        var reason: String { RowByRowReason.untranslatable(mapping: mapping, detail: detail).description }
    }
}
