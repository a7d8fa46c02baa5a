/// Hands out slot indices while a checked expression is turned into closures, and
/// remembers which slots this expression reads. Compile-time only.
final class Linker {
    let table: SlotTable
    private(set) var used: [Int] = []

    init(table: SlotTable) {
        self.table = table
    }

    func slot(for path: SourcePath) -> Int {
        let slot = table.slot(for: path)
        if !used.contains(slot) { used.append(slot) }
        return slot
    }
}

/// A type-checked subexpression: its static type, and how to build its evaluator. Paths
/// are registered in the slot table only by `build`, which runs after the whole
/// expression checked, so a rejected expression leaves the table untouched.
struct Checked {
    var type: ExprType
    var syntax: Syntax
    var build: (Linker) -> Evaluate
    /// What SQLite would evaluate the same way; nil when there is no exact twin.
    var form: ExpressionForm? = nil

    var column: Int { syntax.column }

    /// The evaluator, with integer results widened to double when `type` is double.
    func build(as target: ExprType, _ linker: Linker) -> Evaluate {
        let evaluate = build(linker)
        guard type == .integer, target == .double else { return evaluate }
        return { context in
            let value = try evaluate(context)
            if case .integer(let i) = value { return .double(Double(i)) }
            return value
        }
    }
}
