import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Read-only connections to the work database for the workers' destination() lookups:
/// one per concurrent worker, reused across chunks.
final class LookupPool: @unchecked Sendable {
    private let path: String
    /// Targets by name: what destination('Mapping', …) and destination('Mapping/Entity', …) name.
    private let targets: [String: TargetID]
    private let lock = NSLock()
    private var idle: [Statement] = []
    // Statements keep their connection alive through `database`; keep both.
    private var connections: [Database] = []

    init(path: String, targets: [String: TargetID]) {
        self.path = path
        self.targets = targets
    }

    func with<T>(_ body: (@escaping @Sendable (String, [Int64]) throws -> [Int64]) throws -> T) throws -> T {
        let statement = try take()
        defer { give(statement) }
        let targets = self.targets
        let transfer = UnsafeTransfer(statement)
        return try body { @Sendable mapping, sources in
            let statement = transfer.value
            var result: [Int64] = []
            var seen = Set<Int64>()
            // The planner resolved every name (`ExpressionScope.mappings`): an unknown one finds nothing.
            guard let target = targets[mapping] else { return [] }
            for source in sources {
                try statement.bind([.integer(Int64(target.index)), .integer(source)])
                defer { statement.reset() }
                while try statement.step() {
                    let key = statement.int64(0)
                    if seen.insert(key).inserted { result.append(key) }
                }
            }
            return result
        }
    }

    private func take() throws -> Statement {
        lock.lock()
        if let statement = idle.popLast() { lock.unlock(); return statement }
        lock.unlock()
        let database = try Database(path: path, mode: .readOnly)
        let statement = try WorkDatabase(file: database).prepareDestinations()
        lock.lock()
        connections.append(database)
        lock.unlock()
        return statement
    }

    private func give(_ statement: Statement) {
        lock.lock()
        idle.append(statement)
        lock.unlock()
    }
}
