import ETLStore
import ETLModel

/// Writes an `ExpressionForm` as SQL over one source row (`alias`, a row of `entity` in
/// the attached source), giving exactly the value the evaluator would.
///
/// Source columns are read as the extractor reads them (`Value(sql:as:)`, dates shifted
/// by the source layout's epoch): a value of the storage class a type usually has is
/// taken as is (or cast as `Value(sql:as:)` casts it, integer to REAL for a double);
/// anything else goes through `etl_value()`, which runs that very conversion in Swift. Only the source row's own attributes, its key and its to-one
/// keys are readable; a deeper path has no translation and keeps the step row by row.
public struct SQLTranslator {
    public let layout: any StoreLayout
    public let entity: String
    public let alias: String
    /// Inside a forEach: the entity of `$item`, whose row is joined under `itemAlias`
    /// (null columns when the item row is missing, as row by row reads it).
    public var itemEntity: String?
    public var itemAlias: String
    /// Read every column as holding a value of its type's usual storage class (`read`),
    /// without the fallback for others: for statements over rows known to hold no other.
    public var usualValuesOnly = false
    /// The statement's row guard (`PushdownPlan.rowGuard`) has tested every value of the
    /// source row's columns it reads: each is one the reading rule reads, so its reads
    /// need only tell its storage class (`usual`, `guarded`).
    public var rowGuarded = false

    public init(layout: any StoreLayout, entity: String, alias: String, itemEntity: String? = nil, itemAlias: String = "i") {
        self.layout = layout
        self.entity = entity
        self.alias = alias
        self.itemEntity = itemEntity
        self.itemAlias = itemAlias
    }

    /// The SQL of `form`, or nil when it cannot be translated.
    public func sql(_ form: ExpressionForm) -> String? {
        switch form {
        case .literal(let value): return Self.literal(value)
        case .path(let path, let type):
            if path.root == .item {
                return itemEntity.flatMap { SQLTranslator(layout: layout, entity: $0, alias: itemAlias).path(path.segments, type) }
            }
            return self.path(path.segments, type)
        case .not(let a): return sql(a).map { "(NOT \($0))" }
        case .and(let a, let b): return binary("AND", a, b)
        case .or(let a, let b): return binary("OR", a, b)
        case .isNull(.path(let path, .string), let wantsNull) where path.root == .source && path.segments.count == 1
                && layout.model.attribute(path.segments[0], of: entity) != nil:
            // Every stored value but null reads as a string: test the column itself.
            let column = "\(alias).\(Database.quote(layout.column(ofAttribute: path.segments[0], entity: entity)))"
            return "(\(column) IS \(wantsNull ? "" : "NOT ")NULL)"
        case .isNull(let a, let wantsNull): return sql(a).map { "(\($0) IS \(wantsNull ? "" : "NOT ")NULL)" }
        case .compare(let op, let a, let b): return binary(op, a, b)
        case .arithmetic(let op, let a, let b): return binary(op, a, b)
        case .toDouble(let a): return sql(a).map { "CAST(\($0) AS REAL)" }
        case .conditional(let c, let a, let b):
            guard let c = sql(c), let a = sql(a), let b = sql(b) else { return nil }
            return "(CASE WHEN \(c) THEN \(a) ELSE \(b) END)"
        case .coalesce(let list):
            let parts = list.compactMap(sql)
            return parts.count == list.count ? "coalesce(\(parts.joined(separator: ", ")))" : nil
        case .convert(let conversion, let argument, let type, let orNull):
            // A string attribute goes in as stored: the function reads it as `read` would
            // (one CASE per value less; see `registerValueFunction`).
            guard let value = argumentSQL(argument, stored: true) else { return nil }
            return ConversionFunctions.sql(conversion, of: value, from: type, orNull: orNull)
        case .call(let function, let arguments):
            var values: [SQLArgument] = []
            for (index, argument) in arguments.enumerated() {
                guard let value = argumentSQL(argument, stored: function.storedText.contains(index)) else { return nil }
                values.append(value)
            }
            return function.write(values)
        case .function(let name, let list):
            let parts = list.compactMap(sql)
            return parts.count == list.count ? "\(ExpressionFunction.sqlName(name))(\(parts.joined(separator: ", ")))" : nil
        case .destinations, .union:
            return nil  // a relationship statement joins these; no scalar value
        }
    }

    /// An argument of a function: with `stored`, a string attribute goes in as its column
    /// (`stringColumn`), which the function reads as `read` would.
    private func argumentSQL(_ form: ExpressionForm, stored: Bool) -> SQLArgument? {
        let column = stored ? stringColumn(form) : nil
        return (column ?? sql(form)).map { SQLArgument(sql: $0, storedColumn: column) }
    }

    /// The source row's string attributes `form` reads at its top, as the argument of a
    /// conversion or built-in that reads its column as stored by the reading rule itself
    /// (`etl_convert_…`, `etl_text_…`, `etl_matches`: each fails the statement on a value
    /// the rule does not read, as the row guard would). A statement that evaluates `form`
    /// on every row it guards need not guard these reads (`PushdownPlan.rowGuard`).
    public func readsByTheRule(_ form: ExpressionForm) -> [SourcePath] {
        let arguments: [ExpressionForm]
        switch form {
        case .convert(_, let argument, .string, _): arguments = [argument]
        case .call(let function, let list): arguments = function.storedText.sorted().filter { $0 < list.count }.map { list[$0] }
        default: return []
        }
        return arguments.compactMap { argument in
            guard case .path(let path, _) = argument, path.root == .source, stringColumn(argument) != nil else { return nil }
            return path
        }
    }

    /// The column a string attribute of the row (or item) is stored in, for `form` reading
    /// one: the shortcuts of `trim` and `boolean` test its value as stored, and only their
    /// call, their way out, reads it as the engine reads it (`read`).
    private func stringColumn(_ form: ExpressionForm) -> String? {
        guard case .path(let path, .string) = form, path.segments.count == 1 else { return nil }
        let (entity, alias) = path.root == .item ? (itemEntity, itemAlias) : (entity, alias)
        guard let entity, let attribute = layout.model.attribute(path.segments[0], of: entity), attribute.type == .string,
              !(attribute.allowsExternalStorage && layout.kind == .coredata) else { return nil }
        return "\(alias).\(Database.quote(layout.column(ofAttribute: attribute.name, entity: entity)))"
    }

    /// The value to store in a destination attribute of `type` (what `storedValue` does):
    /// dates shifted to the destination's epoch, integers made REAL for non-integer numbers.
    public func stored(_ expression: CompiledExpression, as type: AttributeType, epoch: Double) -> String? {
        guard let form = expression.form, let value = sql(form) else { return nil }
        // A date copied from a store that counts from the same instant is copied as stored:
        // shifting to 1970 and back would round away its last bits (Core Data's own
        // migration keeps them).
        if case .path(let path, .date) = form, path.root == .source, path.segments.count == 1, layout.dateEpoch == epoch,
           let attribute = layout.model.attribute(path.segments[0], of: entity), attribute.type == .date {
            return Self.read("\(alias).\(Database.quote(layout.column(ofAttribute: attribute.name, entity: entity)))", as: .date,
                             epoch: layout.dateEpoch, shifted: false, guarded: rowGuarded)
        }
        switch expression.type {
        case .date where epoch != 0: return "(\(value) - \(Self.literal(.double(epoch))))"
        case .integer where !type.isInteger && type.isNumeric: return "CAST(\(value) AS REAL)"
        default: return value
        }
    }

    private func binary(_ op: String, _ a: ExpressionForm, _ b: ExpressionForm) -> String? {
        guard let a = sql(a), let b = sql(b) else { return nil }
        return "(\(a) \(op) \(b))"
    }

    private func path(_ segments: [String], _ type: ExprType) -> String? {
        let q = Database.quote
        let model = layout.model
        guard let name = segments.first else {
            return "\(alias).\(q(layout.table(of: entity).keyColumn))"
        }
        guard segments.count == 1 else { return nil }
        if let attribute = model.attribute(name, of: entity) {
            // The column holds a marker, the bytes may be in a file: read row by row.
            if attribute.allowsExternalStorage && layout.kind == .coredata { return nil }
            return Self.read("\(alias).\(q(layout.column(ofAttribute: attribute.name, entity: entity)))",
                             as: ExprType(attribute.type), epoch: layout.dateEpoch, usualOnly: usualValuesOnly, guarded: rowGuarded)
        }
        if let r = model.relationship(name, of: entity), !r.isToMany,
           case .foreignKey(_, let column) = layout.storage(ofRelationship: name, entity: entity) {
            // Only an integer is a key (`Value(sql:as:)` reads anything else as null).
            let c = "\(alias).\(q(column))"
            return "(CASE WHEN typeof(\(c)) = 'integer' THEN \(c) END)"
        }
        return nil
    }

    /// A literal as SQL. Doubles are written in Swift's shortest form that reads back as
    /// the same double, which SQLite's parser also reads back exactly.
    public static func literal(_ value: Value) -> String {
        switch value {
        case .double(let d): return d.isFinite ? "\(d)" : "NULL"
        case .date(let d): return d.isFinite ? "\(d)" : "NULL"
        default: return value.sqlValue.sqlLiteral
        }
    }
}
