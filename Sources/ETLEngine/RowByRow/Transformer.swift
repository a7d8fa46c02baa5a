import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// The transform stage of one entity mapping: per source row (and forEach item), the
/// filter, the uniqueBy key, every destination attribute, then the policy's create hook.
/// Pure: runs on any worker, reads nothing but the chunk.
struct Transformer: Sendable {
    let mapping: MappingPlan
    let targets: [TargetPlan]
    let policy: Policy?
    /// The policy's create closure for this mapping (`Policy.preparedCreate`).
    var create: (run: Policy.Create, bySlot: Bool)?
    /// The destination layout's date epoch (seconds since 1970).
    let epoch: Double
    /// The source layout's: a date copied between stores of one epoch keeps its stored bits.
    var sourceEpoch: Double = 0
    /// Step and mapping names for reject records.
    let step: String
    /// The destination is a Core Data store: a binary attribute allowing external storage
    /// gets its value inline, behind the `0x01` marker (`ExternalBinaryStorage`).
    var marksExternalStorage = false
    /// Per target, what a policy's rows need of each attribute, in the loader's order:
    /// worked out once, so that no attribute is copied per row.
    private let fields: [[PolicyOutputField]]

    private struct PolicyOutputField {
        let attribute: Attribute
        let type: ExprType
        /// The model's default, for an attribute the mapping declares nothing for.
        let constant: SQLValue?
    }

    init(mapping: MappingPlan, targets: [TargetPlan], policy: Policy?, epoch: Double, step: String) {
        self.mapping = mapping
        self.targets = targets
        self.policy = policy
        self.epoch = epoch
        self.step = step
        fields = targets.map { target in
            target.attributes.map { assignment in
                let constant: SQLValue?
                if case .constant(let value) = assignment.source { constant = value } else { constant = nil }
                return PolicyOutputField(attribute: assignment.attribute, type: ExprType(assignment.attribute.type), constant: constant)
            }
        }
    }

    /// The source's marker when `expression` passes an externally stored value through
    /// unchanged (`$source.attribute`) into an attribute that allows external storage, and
    /// no policy sees the row: the value keeps its form, its file is linked, not re-read.
    /// `dangling`: its file is missing (`UnreadMarker.Cause.missingFile`), so it is carried without one.
    private func passedThroughMarker(_ expression: CompiledExpression, _ attribute: Attribute, chunk: ExtractedChunk,
                                     row: Int) -> (marker: [UInt8], dangling: Bool)? {
        guard let position = passThroughPosition(expression, attribute, chunk: chunk),
              let marker = chunk.rows.externalMarkers[row]?[position] else { return nil }
        return (marker, chunk.rows.unreadMarkers[row]?[position]?.cause == .missingFile)
    }

    /// The source position `expression` passes through unchanged into `attribute`, when it
    /// is such a pass-through (see `passedThroughMarker`).
    private func passThroughPosition(_ expression: CompiledExpression, _ attribute: Attribute, chunk: ExtractedChunk) -> Int? {
        guard marksExternalStorage, attribute.allowsExternalStorage, policy == nil,
              case .path(let path, .binary)? = expression.form, path.root == .source, path.segments.count == 1,
              expression.slotsRead.count == 1, expression.slotsRead[0] < chunk.slotSources.count else { return nil }
        let (root, position) = chunk.slotSources[expression.slotsRead[0]]
        return root == .source ? position : nil
    }

    /// A value whose file was not read (missing or too large: `SourceRows.unreadMarkers`)
    /// that the row uses other than by passing it through (which keeps its marker): the
    /// filter, the uniqueBy key, forEach, another expression or a policy reads it. The first
    /// such, by position: its path and why; nil when every use is a pass-through.
    private func unreadValueRead(row: Int, chunk: ExtractedChunk) -> (path: String, reason: String)? {
        guard let unread = chunk.rows.unreadMarkers[row] else { return nil }
        let byPosition = unread.sorted { $0.key < $1.key }
        if policy != nil { return byPosition.first.map { ($0.value.path, $0.value.reason) } }
        var slots = [mapping.filter, mapping.uniqueBy, mapping.forEach].compactMap { $0 }.flatMap(\.slotsRead)
        for assignment in mapping.attributes {
            if case .expression(let expression) = assignment.source, passThroughPosition(expression, assignment.attribute, chunk: chunk) == nil {
                slots += expression.slotsRead
            }
        }
        let read = Set(slots.compactMap { $0 < chunk.slotSources.count && chunk.slotSources[$0].0 == .source ? chunk.slotSources[$0].1 : nil })
        return byPosition.first { read.contains($0.key) }.map { ($0.value.path, $0.value.reason) }
    }

    /// `value` as the destination column holds it.
    private func stored(_ value: Value, _ attribute: Attribute) -> SQLValue {
        let sql = storedValue(value, as: attribute.type, epoch: epoch)
        if marksExternalStorage, attribute.allowsExternalStorage, case .blob(let bytes) = sql { return ExternalBinaryStorage.inline(bytes) }
        return sql
    }

    /// One destination row to insert, and the source row it comes from.
    struct NewRow {
        /// Where the row goes.
        var target: TargetID
        var sourceKey: Int64
        var item: Int64
        /// The uniqueBy key; nil without uniqueBy or when the key is null (not deduplicated).
        var unique: SQLValue?
        var values: [SQLValue]
        /// Files of the source's external storage the row's values name (kept in that form):
        /// the loader puts them into the destination's folder.
        var externalFiles: [String] = []
        /// The row its source row makes for the mapping (Core Data's `super`): it keeps the
        /// source key where its target does (`StepPlan.sourceKeyTargets`). False for the rows
        /// a policy adds and those of an end-of-mapping hook: they take new keys.
        var keepsSourceKey = true
    }

    struct Result {
        /// The chunk's last source key: where a resume continues once it is loaded.
        var lastKey: Int64
        var read: Int
        var filtered: Int
        var rows: [NewRow]
        var rejects: [Reject]
        /// Values `orNull(…)` made null in the rows kept.
        var nullsOnPurpose = 0
    }

    /// For `$source.date` copied to a store of the source's epoch, what shifting it to 1970
    /// and back rounded away (nil when nothing): pushed down, such a copy is the stored value.
    private func copiedDateResidual(_ expression: CompiledExpression, chunk: ExtractedChunk, row: Int) -> Double? {
        guard epoch != 0, sourceEpoch == epoch, !chunk.rows.dateResiduals.isEmpty,
              case .path(let path, .date)? = expression.form, path.root == .source, path.segments.count == 1,
              expression.slotsRead.count == 1 else { return nil }
        let (root, position) = chunk.slotSources[expression.slotsRead[0]]
        guard root == .source else { return nil }
        return chunk.rows.dateResiduals[row]?[position]
    }

    func transform(_ chunk: ExtractedChunk) throws -> Result {
        var result = Result(lastKey: chunk.rows.keys.last ?? .min, read: chunk.rows.keys.count, filtered: 0, rows: [], rejects: [])
        result.rows.reserveCapacity(chunk.rows.keys.count)
        let nulls = NullCount()
        for (row, key) in chunk.rows.keys.enumerated() {
            let nullsBefore = nulls.count
            do {
                try transform(row: row, key: key, chunk: chunk, nulls: nulls, into: &result)
            } catch let failure as RowFailure {
                nulls.count = nullsBefore
                // The row is rejected whole: nothing of it is loaded. The loader decides
                // whether the run can go on (maxRejects).
                result.rows.removeAll { $0.sourceKey == key }
                result.rejects.append(Reject(step: step, mapping: mapping.name, stage: "create", entity: mapping.sourceEntity,
                                             key: key, expression: failure.expression, error: failure.reason,
                                             values: values(of: chunk, row: row)))
            }
        }
        result.nullsOnPurpose = nulls.count
        return result
    }

    private func transform(row: Int, key: Int64, chunk: ExtractedChunk, nulls: NullCount, into result: inout Result) throws {
        if let (path, reason) = chunk.rows.unreadable[row] ?? unreadValueRead(row: row, chunk: chunk) {
            throw RowFailure(key: key, expression: path, reason: reason)
        }
        // Values made null as `"unreadable": "null"` says: counted with the row's other nulls.
        if let nulled = chunk.rows.nulledUnreadable[row] { nulls.count += nulled }
        var items: [Int64?] = [nil]
        if let forEach = mapping.forEach {
            let context = EvaluationContext(slots: chunk.slots(row: row, item: nil), lookup: noLookup, nullsOnPurpose: nulls)
            guard case .rows(let list) = try evaluate(forEach, context, key: key) else { return }
            items = list
        }
        for item in items {
            if let item, let (path, reason) = chunk.unreadableItems[item] {
                throw RowFailure(key: key, expression: path.replacingOccurrences(of: "$source", with: "$item"), reason: "item \(item): \(reason)")
            }
            let slots = chunk.slots(row: row, item: item)
            let context = EvaluationContext(slots: slots, lookup: noLookup, nullsOnPurpose: nulls)
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
            var files: [String] = []
            values.reserveCapacity(mapping.attributes.count)
            for assignment in mapping.attributes {
                switch assignment.source {
                case .constant(let value): values.append(value)
                case .expression(let expression):
                    if let passed = passedThroughMarker(expression, assignment.attribute, chunk: chunk, row: row),
                       let name = ExternalBinaryStorage.fileName(of: passed.marker) {
                        values.append(.blob(passed.marker))
                        // A marker whose file the source lacks is carried as it is, without a file
                        // (`DanglingExternalData` counts them once the step is done).
                        if !passed.dangling { files.append(name) }
                    } else {
                        var value = stored(try evaluate(expression, context, key: key), assignment.attribute)
                        if let residual = copiedDateResidual(expression, chunk: chunk, row: row), case .real(let seconds) = value {
                            value = .real(seconds + residual)
                        }
                        values.append(value)
                    }
                }
            }
            var own = NewRow(target: mapping.targets[0], sourceKey: key, item: item ?? WorkDatabase.noItem, unique: unique, values: values)
            own.externalFiles = files
            if let create {
                result.rows += try applyPolicy(create.run, bySlot: create.bySlot, own: own, slots: slots, key: key, item: item)
            } else {
                result.rows.append(own)
            }
        }
    }

    /// Runs the create hook on the declared row and turns what it leaves into rows to load.
    /// `bySlot`: the closure was prepared with fields, it gets the declared row by position
    /// (`PolicyOutput.Row.fields`), not as a dictionary by name. SQLite calls it too
    /// (`PolicyInSQLite`), on the same rows as read here.
    func applyPolicy(_ create: Policy.Create, bySlot: Bool = false, own: NewRow, slots: [Value], key: Int64, item: Int64?) throws -> [NewRow] {
        let ownFields = fields[own.target.index]
        var declared: [Value?] = []
        declared.reserveCapacity(ownFields.count)
        for index in ownFields.indices {
            var sql = own.values[index]
            // The policy sees the bytes, not the marker `stored` put before them.
            if marksExternalStorage, ownFields[index].attribute.allowsExternalStorage, case .blob(let marked) = sql { sql = .blob(Array(marked.dropFirst())) }
            declared.append(Value(sql: sql, as: ownFields[index].type, epoch: epoch))
        }
        let uniqueKey = own.unique.map { Value(sql: $0, as: .string, epoch: 0) }
        var output = PolicyOutput(rows: [bySlot ? PolicyOutput.Row(fields: declared, entity: targets[own.target].entity, uniqueKey: uniqueKey)
            : PolicyOutput.Row(values: Dictionary(uniqueKeysWithValues: zip(ownFields.map(\.attribute.name), declared.map { $0! })),
                               uniqueKey: uniqueKey)])
        let source = PolicySourceRow(key: key, item: item, values: slots, names: mapping.policyCreateSlots, bySlot: bySlot)
        do {
            try create(source, &output)
        } catch {
            throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "\(error)")
        }
        // The first row of the mapping's own entity without a uniqueKey is the declared one
        // (or what the policy made of it): one per source row, it may keep the source key.
        var declaredFound = false
        return try output.rows.map { row in
            let entity = row.entity ?? mapping.destinationEntity
            // A row without an entity is of the mapping's own (its first target).
            guard let target = row.entity == nil ? mapping.targets.first : mapping.targets.first(where: { targets[$0].entity == entity }) else {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)",
                                 reason: "created a row of \(entity), which is neither the mapping's entity nor one the policy declares in `creates`")
            }
            if let field = row.misplacedField {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "set \(field) on a row of \(entity)")
            }
            if !row.fields.isEmpty, let fieldsEntity = row.fieldsEntity, fieldsEntity != entity {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "set fields of \(fieldsEntity) on a row of \(entity)")
            }
            let targetFields = fields[target.index]
            var values: [SQLValue] = []
            values.reserveCapacity(targetFields.count)
            // By name (the dictionary API) over by position (fields); unset: the declared value or default.
            for index in targetFields.indices {
                if !row.values.isEmpty, let value = row.values[targetFields[index].attribute.name] {
                    values.append(stored(value, targetFields[index].attribute))
                } else if index < row.fields.count, let value = row.fields[index] {
                    values.append(stored(value, targetFields[index].attribute))
                } else {
                    values.append(targetFields[index].constant ?? .null)
                }
            }
            for name in row.values.keys where !targetFields.contains(where: { $0.attribute.name == name }) {
                throw RowFailure(key: key, expression: "policy \(mapping.policy!)", reason: "set '\(name)', which is not an attribute of \(entity)")
            }
            var made = NewRow(target: target, sourceKey: key, item: item ?? WorkDatabase.noItem,
                              unique: row.uniqueKey.flatMap { $0.isNull ? nil : $0.sqlValue }, values: values)
            made.keepsSourceKey = !declaredFound && target == mapping.targets[0] && made.unique == nil
            declaredFound = declaredFound || made.keepsSourceKey
            return made
        }
    }

    /// A row an end-of-mapping hook made: associated with no source row (`Loader` keeps its
    /// association apart, `WorkDatabase.endOfMappingAssociations`; the source key is a placeholder).
    func endOfMappingRow(_ row: PolicyOutput.Row) throws -> NewRow {
        let rows = try applyPolicy({ _, output in output.rows = [row] },
                                   own: NewRow(target: mapping.targets[0], sourceKey: .max, item: WorkDatabase.noItem, unique: nil,
                                               values: targets[mapping.targets[0]].attributes.map { _ in .null }),
                                   slots: [], key: .max, item: nil)
        var row = rows[0]
        row.keepsSourceKey = false
        return row
    }

    /// The source values a reject record keeps, by path.
    private func values(of chunk: ExtractedChunk, row: Int) -> [String: String] {
        var out: [String: String] = [:]
        for (index, path) in mapping.createPaths.enumerated() where path.root == .source && index < chunk.slotSources.count {
            let (_, position) = chunk.slotSources[index]
            // A value the reading rule does not read: as stored, not the null it reads as.
            out[path.description] = chunk.rows.originals[row]?[position] ?? chunk.rows.values[row][position].description
        }
        return out
    }
}

extension Value {
    /// A stored value read back as an expression value, dates shifted from the layout's epoch.
    init(sql: SQLValue, as type: ExprType, epoch: Double) {
        self = Value.reading(sql, as: type, epoch: epoch) ?? .null
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
