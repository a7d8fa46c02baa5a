import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// What a step removes that holds data: each source entity (its rows) and property (its
/// non-null values, a to-many's links) the step's mappings leave unread (`StepPlan.removed`),
/// counted in the step's source before a row is read. What the pipeline declares is
/// dropped and counted in the summary and the progress events; the rest refuses the step.
public struct RemovedData: Sendable {
    public typealias Item = RemovedItem

    /// Only those holding data.
    public let items: [Item]
    public var undeclared: [Item] { items.filter { $0.declaredBy == nil } }

    /// `memo`: the step's plan's (`PlanMemo`), where what it removes (of the plan alone) is kept.
    init(step: StepPlan, source: Database, memo: PlanMemo? = nil) throws {
        let removed = memo?.value(RemovedKey(step: step.index, stepName: step.name)) { step.removed } ?? step.removed
        items = try Self.counts(of: removed, layout: step.sourceLayout, source: source).map {
            Item(name: $0.name, entity: $0.entity, count: $0.count, declaredBy: step.declaredDrops[$0.name])
        }
    }

    /// A step's `removed`, kept in its plan's memo.
    struct RemovedKey: PlanMemoKey {
        typealias Value = [String]
        let step: Int
        let stepName: String
    }

    /// The undeclared removals of the steps after the first that the run's source already
    /// holds under the same names (`first` is the first step): found before the first step
    /// reads a row, where each step's own check would find them only once the steps before
    /// it ran. Each with the step that would leave it unread.
    static func laterUndeclared(_ steps: [StepPlan], source: Database) throws -> [(step: StepPlan, items: [Item])] {
        guard let first = steps.first else { return [] }
        return steps.dropFirst().compactMap { step in
            // A name the source's tables do not hold as its model says is left to the step's own check.
            let items = step.removed.filter { step.declaredDrops[$0] == nil }.flatMap { name in
                ((try? counts(of: [name], layout: first.sourceLayout, source: source)) ?? []).map {
                    Item(name: $0.name, entity: $0.entity, count: $0.count, declaredBy: nil)
                }
            }
            return items.isEmpty ? nil : (step, items)
        }
    }

    /// The rows (`"Entity"`) or non-null values (`"Entity.property"`) of `names` in `source`,
    /// read through `layout`; names its model does not have are left out, and so are counts of 0.
    static func counts(of names: [String], layout: any StoreLayout, source: Database) throws -> [(name: String, entity: String, count: Int)] {
        let model = layout.model
        let q = Database.quote
        var items: [(name: String, entity: String, count: Int)] = []
        for name in names {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let entity = parts[0]
            guard model.entity(named: entity) != nil else { continue }
            let table = layout.table(of: entity)
            let rows = "\(q(table.name)) t" + (table.condition(alias: "t").map { " WHERE \($0)" } ?? "")
            let sql: String
            if parts.count == 1 {
                sql = "SELECT count(*) FROM \(rows)"
            } else if model.attribute(parts[1], of: entity) != nil {
                sql = "SELECT count(t.\(q(layout.column(ofAttribute: parts[1], entity: entity)))) FROM \(rows)"
            } else if model.relationship(parts[1], of: entity) != nil {
                switch layout.storage(ofRelationship: parts[1], entity: entity) {
                case .foreignKey(_, let column):
                    sql = "SELECT count(t.\(q(column))) FROM \(rows)"
                case .inverseForeignKey(let other, let column):
                    sql = "SELECT count(\(q(column))) FROM \(q(other)) WHERE \(q(column)) IN (SELECT t.\(q(table.keyColumn)) FROM \(rows))"
                case .joinTable(let join, let own, _):
                    sql = "SELECT count(*) FROM \(q(join)) WHERE \(q(own)) IN (SELECT t.\(q(table.keyColumn)) FROM \(rows))"
                }
            } else {
                continue
            }
            let count = Int(try source.scalarInt(sql))
            if count > 0 { items.append((name, entity, count)) }
        }
        return items
    }
}
