import ETLStore
import ETLModel
import ETLPipeline

/// The transform stage of one entity mapping: per source row (and forEach item), the
/// filter, the uniqueBy key and every destination attribute. Pure: runs on any worker,
/// reads nothing but the chunk.
struct Transformer: Sendable {
    let mapping: MappingPlan
    /// The destination layout's date epoch (seconds since 1970).
    let epoch: Double

    /// One destination row to insert, and the source row it comes from.
    struct NewRow {
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
    }

    func transform(_ chunk: ExtractedChunk) throws -> Result {
        var result = Result(lastKey: chunk.rows.keys.last ?? .min, read: chunk.rows.keys.count, filtered: 0, rows: [])
        result.rows.reserveCapacity(chunk.rows.keys.count)
        for (row, key) in chunk.rows.keys.enumerated() {
            var items: [Int64?] = [nil]
            if let forEach = mapping.forEach {
                let context = EvaluationContext(slots: chunk.slots(row: row, item: nil), lookup: noLookup)
                guard case .rows(let list) = try evaluate(forEach, context, key: key) else { continue }
                items = list
            }
            for item in items {
                let context = EvaluationContext(slots: chunk.slots(row: row, item: item), lookup: noLookup)
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
                result.rows.append(NewRow(sourceKey: key, item: item ?? WorkArea.noItem, unique: unique, values: values))
            }
        }
        return result
    }
}
