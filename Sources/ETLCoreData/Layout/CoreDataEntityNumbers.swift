import ETLModel
/// The entity numbers (`Z_ENT`) Core Data would give a model's entities in a new store.
///
/// The rule used here: root entities in name order; each entity is followed at once by its
/// sub-entities (again in name order, recursively), i.e. a depth-first, pre-order walk of
/// the inheritance forest with siblings sorted by name; numbers start at 1.
///
/// Why: Core Data does not document its numbering. What stores show:
/// - the shared fixtures (one entity: `BasicEntity` = 1);
/// - stores seen in public repositories number related entities alphabetically
///   (`Collection` = 1 … `Song` = 4; `Recipe` = 12, `RecipeCategory` = 13), and put
///   sub-entities right after their parent rather than at their own place in the alphabet
///   (`Tag` = 73, its sub-entity `CashFlowTag` = 74, whose sub-entities `CategoryTag` = 75 and
///   `UserTag` = 76, then `Transaction` = 78 and its sub-entities from 79).
///
/// Names compare case-insensitively (facts §0, 101/101 stores: SyncMetadata_V3 numbers
/// `SyncableSettingsMetadata` 1 before `SyncFeatureEntity` 2, which code-point order would
/// swap). Uncertain: whether numbers ever skip. So numbers are
/// only *invented* for a new store; a store that exists is always read through its
/// `Z_PRIMARYKEY` (`CoreDataLayout(model:store:)`), never numbered by this rule.
public enum CoreDataEntityNumbers {
    public static func conventional(for model: Model) -> [String: Int] {
        var numbers: [String: Int] = [:]
        var next = 1
        func visit(_ name: String) {
            guard numbers[name] == nil else { return }
            numbers[name] = next
            next += 1
            for child in model.entities.filter({ $0.parent == name }).map(\.name).sorted(by: CoreDataNames.sortsBefore) {
                visit(child)
            }
        }
        // Roots: no parent, or a parent the model does not define (read leniently).
        let roots = model.entities.filter { $0.parent == nil || model.entity(named: $0.parent!) == nil }
        for root in roots.map(\.name).sorted(by: CoreDataNames.sortsBefore) { visit(root) }
        // Entities caught in an inheritance cycle (rejected by the model readers) still get a number.
        for entity in model.entities.map(\.name).sorted(by: CoreDataNames.sortsBefore) { visit(entity) }
        return numbers
    }

    /// The model's entities in number order.
    static func ordered(_ model: Model, _ numbers: [String: Int]) -> [Entity] {
        model.entities.sorted { (numbers[$0.name] ?? Int.max, $0.name) < (numbers[$1.name] ?? Int.max, $1.name) }
    }
}
