import ETLStore
import ETLModel
import ETLPipeline

/// The transform stage of one entity mapping: per source row (and forEach item), the
/// filter, the uniqueBy key, every destination attribute, then the policy's create hook.
/// Pure: runs on any worker, reads nothing but the chunk.
struct Transformer: Sendable {
    let mapping: MappingPlan
    let targets: [TargetPlan]
    let policy: Policy?
    /// The destination layout's date epoch (seconds since 1970).
    let epoch: Double
    /// Step and mapping names for reject records.
    let step: String

    /// One destination row to insert, and the source row it comes from.
    struct NewRow {
        /// Index into the step's targets.
        var target: Int
        var sourceKey: Int64
        var item: Int64
        /// The uniqueBy key; nil without uniqueBy or when the key is null (not deduplicated).
        var unique: SQLValue?
        var values: [SQLValue]
    }

    struct Result {
        /// The chunk's last source key: where a resume continues once it is loaded.
        var lastKey: Int64
        var read: Int
        var filtered: Int
        var rows: [NewRow]
        var rejects: [Reject]
    }

    func transform(_ chunk: ExtractedChunk) throws -> Result {
        var result = Result(lastKey: chunk.rows.keys.last ?? .min, read: chunk.rows.keys.count, filtered: 0, rows: [], rejects: [])
        result.rows.reserveCapacity(chunk.rows.keys.count)
        for (row, key) in chunk.rows.keys.enumerated() {
            do {
                try transform(row: row, key: key, chunk: chunk, into: &result)
            } catch let failure as RowFailure {
                // The row is rejected whole: nothing of it is loaded. The loader decides
                // whether the run can go on (maxRejects).
                result.rows.removeAll { $0.sourceKey == key }
                result.rejects.append(Reject(step: step, mapping: mapping.name, stage: "create", entity: mapping.sourceEntity,
                                             key: key, expression: failure.expression, error: failure.reason,
                                             values: values(of: chunk, row: row)))
            }
        }
        return result
    }

    private func transform(row: Int, key: Int64, chunk: ExtractedChunk, into result: inout Result) throws {
        var items: [Int64?] = [nil]
        if let forEach = mapping.forEach {
            let context = EvaluationContext(slots: chunk.slots(row: row, item: nil), lookup: noLookup)
            guard case .rows(let list) = try evaluate(forEach, context, key: key) else { return }
            items = list
        }
        for item in items {
            let slots = chunk.slots(row: row, item: item)
            let context = EvaluationContext(slots: slots, lookup: noLookup)
            if let filter = mapping.filter, !(try evaluate(filter, context, key: key).isTrue) {
                result.filtered += 1
                continue
            }
            var unique: SQLValue?
            if let uniqueBy = mapping.uniqueBy {
                let value = try evaluate(uniqueBy, context, key: key)
                unique = value.isNull ? nil : value.sqlValue
            }
            var values: [SQLValue] = []
            values.reserveCapacity(mapping.attributes.count)
            for assignment in mapping.attributes {
                switch assignment.source {
                case .constant(let value): values.append(value)
                case .expression(let expression):
                    values.append(storedValue(try evaluate(expression, context, key: key), as: assignment.attribute.type, epoch: epoch))
                }
            }
            let own = NewRow(target: mapping.targets[0], sourceKey: key, item: item ?? WorkArea.noItem, unique: unique, values: values)
            if let create = policy?.create {
                result.rows += try applyPolicy(create, own: own, slots: slots, key: key, item: item)
            } else {
                result.rows.append(own)
            }
        }
    }

    /// Runs the create hook on the declared row and turns what it leaves into rows to load.
    private func applyPolicy(_ create: Policy.Create, own: NewRow, slots: [Value], key: Int64, item: Int64?) throws -> [NewRow] {
        let ownTarget = targets[own.target]
        var declared: [String: Value] = [:]
        for (index, assignment) in ownTarget.attributes.enumerated() {
            declared[assignment.attribute.name] = Value(sql: own.values[index], as: ExprType(assignment.attribute.type), epoch: epoch)
        }
        var output = PolicyOutput(rows: [PolicyOutput.Row(values: declared, uniqueKey: own.unique.map { Value(sql: $0, as: .string, epoch: 0) })])
        let source = PolicySourceRow(key: key, item: item, values: slots, names: mapping.policyCreateSlots)
        do {
            try create(source, &output)
        } catch {
            throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "\(error)")
        }
        return try output.rows.map { row in
            let entity = row.entity ?? mapping.destinationEntity
            guard let target = mapping.targets.first(where: { targets[$0].entity == entity }) else {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)",
                                 reason: "created a row of \(entity), which is neither the mapping's entity nor one the policy declares in `creates`")
            }
            var values: [SQLValue] = []
            for assignment in targets[target].attributes {
                let name = assignment.attribute.name
                if let value = row.values[name] {
                    values.append(storedValue(value, as: assignment.attribute.type, epoch: epoch))
                } else if case .constant(let value) = assignment.source {
                    values.append(value)
                } else {
                    values.append(.null)
                }
            }
            for name in row.values.keys where !targets[target].attributes.contains(where: { $0.attribute.name == name }) {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "set '\(name)', which is not an attribute of \(entity)")
            }
            return NewRow(target: target, sourceKey: key, item: item ?? WorkArea.noItem,
                          unique: row.uniqueKey.flatMap { $0.isNull ? nil : $0.sqlValue }, values: values)
        }
    }

    /// A row an end-of-mapping hook made: associated with no source row (`Loader` keeps its
    /// association apart, `WorkArea.endOfMappingAssociations`; the source key is a placeholder).
    func endOfMappingRow(_ row: PolicyOutput.Row) throws -> NewRow {
        let rows = try applyPolicy({ _, output in output.rows = [row] },
                                   own: NewRow(target: mapping.targets[0], sourceKey: .max, item: WorkArea.noItem, unique: nil,
                                               values: targets[mapping.targets[0]].attributes.map { _ in .null }),
                                   slots: [], key: .max, item: nil)
        return rows[0]
    }

    /// The source values a reject record keeps, by path.
    private func values(of chunk: ExtractedChunk, row: Int) -> [String: String] {
        var out: [String: String] = [:]
        for (index, path) in mapping.createPaths.enumerated() where path.root == .source && index < chunk.slotSources.count {
            let (_, position) = chunk.slotSources[index]
            out[path.description] = chunk.rows.values[row][position].description
        }
        return out
    }
}

extension Value {
    /// A stored value read back as an expression value, dates shifted from the layout's epoch.
    init(sql: SQLValue, as type: ExprType, epoch: Double) {
        self.init(sql: sql, as: type)
        if epoch != 0, case .date(let seconds) = self { self = .date(seconds + epoch) }
    }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return s
        case .date(let d): return "date(\(d))"
        case .binary(let b): return "<\(b.count) bytes>"
        case .row(let k): return "#\(k)"
        case .rows(let ks): return "[" + ks.map { "#\($0)" }.joined(separator: ", ") + "]"
        }
    }
}
