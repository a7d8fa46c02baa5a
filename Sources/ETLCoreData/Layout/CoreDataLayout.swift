import Foundation
import ETLStore
import ETLModel

/// Core Data's SQLite layout (NSSQLiteStoreType), so that stores written by apps can be
/// read and stores the app can open can be written.
///
/// - One table `Z<ROOT>` per root entity with `Z_PK` (the key), `Z_ENT` (the entity number)
///   and `Z_OPT` (1 on insert); sub-entities share it and are told apart by `Z_ENT`.
/// - Attributes and to-ones are columns `Z<NAME>`; to-ones are indexed.
/// - A to-many whose inverse is a to-one is stored by that inverse's column.
/// - A one-to-one is stored on *both* sides (each side's table has its column): both sides
///   report `.foreignKey`. A writer may set either side or both: `finish` copies a link set
///   on one side only to the other side, and fails if the two sides disagree.
/// - A many-to-many is a join table `Z_<n><REL>` (`CoreDataNames` has the naming rules).
/// - Dates are seconds since 2001-01-01 (`dateEpoch` 978307200).
///
/// Made for a new store (`init(model:)`, names and entity numbers by Core Data's conventions,
/// see `CoreDataEntityNumbers`) or from an existing store (`init(model:store:)`: entity
/// numbers from its `Z_PRIMARYKEY`, tables and columns as they really are).
///
/// `finish` writes the bookkeeping Core Data needs to open the store: `Z_PRIMARYKEY`,
/// `Z_METADATA`, the destination-entity columns of to-ones, the ordering columns of ordered
/// relationships and the mirrored side of one-to-ones.
public struct CoreDataLayout: StoreLayout {
    public let model: Model
    public var kind: LayoutKind { .coredata }
    /// Core Data stores dates as seconds since 2001-01-01T00:00:00Z.
    public var dateEpoch: Double { 978_307_200 }

    /// Metadata of a store the app itself created at this model's version (an empty template
    /// store will do). Optional: `finish` computes the version hashes from the model
    /// (`VersionHashes`); a template's hashes must equal them (`checkVersionHashes`), and give
    /// the hashes when the model has a feature whose hash cannot be computed with certainty.
    public var template: CoreDataMetadata?

    /// Hashes a store Core Data wrote recorded for entities of `model` whose hash cannot be
    /// computed (`VersionHashes.recordedHashes`): with them, no template is needed for an
    /// entity with a derived attribute that the migration leaves as it was.
    public var recordedHashes: [String: Data] = [:]

    /// The `Z_UUID` `finish` writes. Nil: keep the UUID already in `Z_METADATA` (so a resumed
    /// finish writes the same one), or make a new one.
    public var storeUUID: String?

    /// The metadata of the store being migrated: `finish` keeps its keys that are not model
    /// keys (the app's own `setMetadata` keys, auto-vacuum level), and replaces the model keys
    /// and the framework version (this layout's). Set `storeUUID` to keep its UUID too.
    public var carried: CoreDataMetadata?

    private(set) var names: CoreDataNames {
        didSet { memo = CoreDataLayoutMemo() }
    }

    /// The migrated store's indexes Core Data would keep beside the model's (`keepIndexes`).
    public internal(set) var keptIndexSQL: [String] = [] {
        didSet { memo = CoreDataLayoutMemo() }
    }

    /// `schemaSQL()` and `versionHashes()` once worked out, shared by the copies of this layout (`CoreDataLayoutMemo`).
    private var memo = CoreDataLayoutMemo()

    /// Conventional names and entity numbers for a new store of `model`.
    public init(model: Model, template: CoreDataMetadata? = nil) {
        self.model = model
        self.template = template
        self.names = CoreDataNames.conventional(model)
    }

    /// The names `store` really uses for `model`: entity numbers from its `Z_PRIMARYKEY`,
    /// tables and columns by introspection. Throws a `CoreDataStoreError` naming the store,
    /// the entities and what is missing (an entity not in `Z_PRIMARYKEY`, a table, a column,
    /// a join table).
    public init(model: Model, store: Database, template: CoreDataMetadata? = nil) throws {
        self.model = model
        self.template = template
        self.names = try CoreDataNames.introspect(model, store: store)
    }

    /// Lays out each self-referencing many-to-many of a new store's model as `source` (a store
    /// Core Data wrote) has it: the model cannot say which relationship names the table, nor
    /// so which column comes first (facts §1.2 b). Pairs the source lacks keep the convention.
    public mutating func adoptSelfReferencingJoins(from source: CoreDataLayout) {
        let choices = source.names.selfJoinChoices(source.model)
        guard !choices.isEmpty else { return }
        names = CoreDataNames.conventional(model, selfJoins: choices)
    }

    /// Why a store of this model cannot be written as Core Data keeps it: derived attributes
    /// of a kind whose triggers are not known (facts §5 verifies only the count of a to-many,
    /// `pages.@count`), each named; nil when there is none.
    public static func derivationRefusal(of model: Model) -> String? {
        let unknown = CoreDataDerivedCount.derivations(of: model) { _, _, _ in }
        guard !unknown.isEmpty else { return nil }
        return "model \(model.version) has derived attribute\(unknown.count == 1 ? "" : "s") " + unknown.joined(separator: ", ")
            + " whose triggers etl does not know: Core Data keeps a derived value up to date with triggers, and etl writes "
            + "them only for the count of a to-many whose inverse is a to-one (derivationExpression 'relationship.@count'). "
            + "Without them the app's next save would leave the values stale, so nothing is read. Migrate this version with Core Data itself"
    }

    /// True when `finish` will write version hashes (computed from the model, or a template's).
    /// When false, the app will not recognise the store's version: the engine should warn.
    public var hasVersionHashes: Bool { (try? versionHashes()) != nil }

    /// The version hashes and digest `finish` writes: computed from the model; a template's
    /// must be the same. Without a template, a model whose hashes cannot be computed with
    /// certainty is refused (`VersionHashError`, naming the entity); with one, its hashes are used.
    public func versionHashes() throws -> VersionHashes {
        let given = template.flatMap { $0.versionHashes.isEmpty ? nil : $0 }
        let computed: VersionHashes
        do {
            computed = try memo.versionHashes(recorded: recordedHashes) { try VersionHashes(model: model, recorded: recordedHashes) }
        } catch let error as VersionHashError {
            guard let given else { throw error }
            return VersionHashes(entities: given.versionHashes, digest: given.versionHashesDigest ?? VersionHashes.digest(of: given.versionHashes))
        }
        if let given {
            for entity in Set(computed.entities.keys).union(given.versionHashes.keys).sorted()
            where computed.entities[entity] != given.versionHashes[entity] {
                let why = computed.entities[entity] == nil ? "the template has a hash for \(entity), which model \(model.version) does not have"
                    : given.versionHashes[entity] == nil ? "the template has no hash for entity \(entity)"
                    : "entity \(entity)'s hash in the template differs from the one computed from model \(model.version)"
                throw CoreDataStoreError(store: "", "the template was not created at model version \(model.version): \(why). "
                    + "Take the template from a store the app created with model \(model.version), or leave the template out")
            }
        }
        return computed
    }

    /// `Z_ENT` of an entity.
    public func entityNumber(of entity: String) -> Int? { names.numbers[entity] }

    /// Every model entity's `Z_ENT`.
    public var entityNumbers: [String: Int] {
        names.numbers.filter { model.entity(named: $0.key) != nil }
    }

    // MARK: StoreLayout

    public func table(of entity: String) -> EntityTable {
        let root = model.root(of: entity)
        guard let table = names.tables[root], let number = names.numbers[entity] else {
            preconditionFailure("unknown entity \(entity): the planner checks names first")
        }
        let shared = model.descendants(of: root).count > 1
        return EntityTable(name: table, keyColumn: "Z_PK",
                           discriminator: shared ? ("Z_ENT", .integer(Int64(number))) : nil,
                           insertDefaults: [("Z_ENT", .integer(Int64(number))), ("Z_OPT", .integer(1))])
    }

    public func column(ofAttribute attribute: String, entity: String) -> String {
        let owner = CoreDataNames.declaring(attribute, from: entity, model)
        guard let column = names.columns["\(owner).\(attribute)"] else {
            preconditionFailure("unknown attribute \(entity).\(attribute): the planner checks names first")
        }
        return column
    }

    public func storage(ofRelationship relationship: String, entity: String) -> RelationshipStorage {
        guard let r = model.relationship(relationship, of: entity) else {
            preconditionFailure("unknown relationship \(entity).\(relationship): the planner checks names first")
        }
        let owner = CoreDataNames.declaring(relationship, from: entity, model)
        if !r.isToMany {
            return .foreignKey(table: table(of: entity).name, column: names.columns["\(owner).\(r.name)"]!)
        }
        if let inverse = model.inverse(of: r), !inverse.isToMany {
            let inverseOwner = CoreDataNames.declaring(inverse.name, from: r.destination, model)
            return .inverseForeignKey(table: table(of: r.destination).name, column: names.columns["\(inverseOwner).\(inverse.name)"]!)
        }
        let side = names.joins["\(owner).\(r.name)"]!
        return .joinTable(table: side.table, ownColumn: side.own, otherColumn: side.other)
    }

    /// The column holding the destination's `Z_ENT` beside a to-one's key column (present when
    /// the destination entity has sub-entities). `finish` fills it.
    public func entityColumn(ofRelationship relationship: String, entity: String) -> String? {
        names.entityColumns["\(CoreDataNames.declaring(relationship, from: entity, model)).\(relationship)"]
    }

    /// The `Z_FOK_` ordering column of an ordered relationship: for a to-many, the column of
    /// its join table (or of the destination's table) that orders the destinations; for the
    /// to-one side of an ordered to-many, the column in its own table. `finish` fills the
    /// ones left null, in key order.
    public func orderColumn(ofRelationship relationship: String, entity: String) -> String? {
        guard let r = model.relationship(relationship, of: entity) else { return nil }
        let owner = CoreDataNames.declaring(relationship, from: entity, model)
        if !r.isToMany { return names.orderColumns["\(owner).\(relationship)"] }
        if let inverse = model.inverse(of: r), !inverse.isToMany {
            let inverseOwner = CoreDataNames.declaring(inverse.name, from: r.destination, model)
            return names.orderColumns["\(inverseOwner).\(inverse.name)"]
        }
        return names.joins["\(owner).\(relationship)"]?.order
    }

    // MARK: Schema

    /// The declared column type Core Data uses for an attribute type.
    public static func columnType(of type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .date: return "TIMESTAMP"
        case .string, .uri: return "VARCHAR"
        case .binary, .uuid, .transformable: return "BLOB"
        }
    }

    /// Core Data's bookkeeping tables, as Core Data declares them.
    public static let bookkeepingSQL = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// The same, `IF NOT EXISTS`, for `finish` (which can run again): made once, not per store.
    static let bookkeepingSQLIfMissing = bookkeepingSQL.map {
        $0.replacingOccurrences(of: "CREATE TABLE ", with: "CREATE TABLE IF NOT EXISTS ")
    }

    /// Quotes a name only when SQL needs it (Core Data's own names never do): a name of
    /// ASCII letters, digits and `_`, not starting with a digit, stays as it is.
    ///
    /// Byte by byte: Character's `isLetter` and `isNumber`, asked of every character of
    /// every name of a layout's SQL (per store, in `finish` too), cost more than the rest
    /// of that SQL. The same answer: a character that is one of those bytes is that byte.
    static func sqlName(_ name: String) -> String {
        func letter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
        }
        let plain = name.utf8.first.map(letter) == true
            && name.utf8.allSatisfy { letter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return plain ? name : Database.quote(name)
    }

    /// The framework version this layout claims (`NSPersistenceFrameworkVersion` of the
    /// metadata `finish` writes): a template's, else `CoreDataMetadata.defaultFrameworkVersion`.
    /// It decides the form of the indexes (facts §4).
    public var frameworkVersion: Int { template?.frameworkVersion ?? CoreDataMetadata.defaultFrameworkVersion }

    /// The indexes Core Data makes for the entities of one table, named as the framework this
    /// layout claims names them (facts §4), each once:
    /// - `<TABLE>_Z_ENT_INDEX` when entities share the table;
    /// - per `indexed="YES"` attribute, and per attribute of a one-element fetch index (which
    ///   the compiled model marks indexed): `Z_<Entity>_<attr>` on `(<C> COLLATE BINARY ASC)`
    ///   from framework 847 on, `<TABLE>_<C>_INDEX` on `(<C>)` before;
    /// - per compound index a, b: `Z_<Entity>_<a>_<b>` on `(<Ca> COLLATE BINARY ASC, …)` from 847
    ///   on, `<TABLE>_<Ca>_<Cb>` on `(<Ca>, <Cb>)` before;
    /// - per fetch index `Z_<Entity>_<name>`, its elements `COLLATE BINARY ASC` (or `DESC`);
    /// - per uniqueness constraint a UNIQUE `Z_<Entity>_UNIQUE_<a>_<b>`.
    /// `<Entity>` is the entity declaring the index or attribute, a sub-entity's name on its
    /// root's table.
    func modelIndexSQL(root: String, table: String) -> [String] {
        let q = Self.sqlName
        let modern = frameworkVersion >= 847
        let entities = model.descendants(of: root).compactMap { model.entity(named: $0) }
        var statements: [String] = []
        var names = Set<String>()
        func add(_ unique: Bool, _ name: String, _ columns: String) {
            guard names.insert(name.uppercased()).inserted else { return }
            statements.append("CREATE \(unique ? "UNIQUE " : "")INDEX \(q(name)) ON \(q(table)) (\(columns))")
        }
        if entities.count > 1 { add(false, "\(table)_Z_ENT_INDEX", "Z_ENT") }
        func columns(_ entity: String, _ properties: [(String, Bool)]) -> String {
            properties.map { "\(q(propertyColumn($0.0, entity: entity))) COLLATE BINARY \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ")
        }
        for entity in entities {
            let single = entity.fetchIndexes.filter { $0.elements.count == 1 && $0.elements[0].isAscending }.map { $0.elements[0].property }
            for property in entity.attributes.filter(\.isIndexed).map(\.name) + single {
                if modern {
                    add(false, "Z_\(entity.name)_\(property)", columns(entity.name, [(property, true)]))
                } else {
                    let column = propertyColumn(property, entity: entity.name)
                    add(false, "\(table)_\(column)_INDEX", q(column))
                }
            }
            for index in entity.compoundIndexes where !index.isEmpty {
                if modern {
                    add(false, "Z_\(entity.name)_" + index.joined(separator: "_"), columns(entity.name, index.map { ($0, true) }))
                } else {
                    let cs = index.map { propertyColumn($0, entity: entity.name) }
                    add(false, "\(table)_" + cs.joined(separator: "_"), cs.map(q).joined(separator: ", "))
                }
            }
            for index in entity.fetchIndexes {
                add(false, "Z_\(entity.name)_\(index.name)", columns(entity.name, index.elements.map { ($0.property, $0.isAscending) }))
            }
            for constraint in entity.uniquenessConstraints {
                add(true, "Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"), columns(entity.name, constraint.map { ($0, true) }))
            }
        }
        return statements
    }

    /// The column of an attribute or to-one relationship (fetch indexes and constraints name either).
    public func propertyColumn(_ property: String, entity: String) -> String {
        if model.attribute(property, of: entity) != nil { return column(ofAttribute: property, entity: entity) }
        return names.columns["\(CoreDataNames.declaring(property, from: entity, model)).\(property)"] ?? "Z" + property.uppercased()
    }

    public func schemaSQL() -> [String] {
        memo.schemaSQL { workOutSchemaSQL() }
    }

    private func workOutSchemaSQL() -> [String] {
        let q = Self.sqlName
        var statements: [String] = []
        // Each claim's attribute in one lookup, not a scan of its entity (which may have 40,000).
        let declared = Dictionary(model.entities.flatMap { e in e.attributes.map { ("\(e.name).\($0.name)", $0) } },
                                  uniquingKeysWith: { first, _ in first })
        for root in CoreDataNames.roots(model, names.numbers) {
            guard let table = names.tables[root.name] else { continue }
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            var indexes: [String] = []
            var seen = Set<String>()
            for claim in CoreDataNames.claims(root: root.name, model, names.numbers) {
                guard let column = names.columns[claim.key], seen.insert(column).inserted else { continue }
                if claim.relationship != nil {
                    columns.append("\(q(column)) INTEGER")
                    indexes.append("CREATE INDEX \(q("\(table)_\(column)_INDEX")) ON \(q(table)) (\(q(column)))")
                    for extra in [names.entityColumns[claim.key], names.orderColumns[claim.key]].compactMap({ $0 })
                    where seen.insert(extra).inserted {
                        columns.append("\(q(extra)) INTEGER")
                    }
                } else if let attribute = declared["\(claim.entity).\(claim.property)"] {
                    columns.append("\(q(column)) \(Self.columnType(of: attribute.type))")
                }
            }
            statements.append("CREATE TABLE \(q(table)) ( " + columns.joined(separator: ", ") + " )")
            statements += indexes
            statements += modelIndexSQL(root: root.name, table: table)
        }
        for count in CoreDataDerivedCount.find(in: self).counts {
            statements += count.triggerSQL
        }
        for join in names.joinTables {
            let columns = [join.firstColumn, join.secondColumn] + join.orderColumns
            statements.append("CREATE TABLE \(q(join.name)) ( " + columns.map { "\(q($0)) INTEGER" }.joined(separator: ", ")
                + ", PRIMARY KEY (\(q(join.firstColumn)), \(q(join.secondColumn))) )")
            // By the columns' roles, not their physical order (a renamed table keeps its old order: facts §1.4).
            statements.append("CREATE INDEX \(q("\(join.name)_\(join.namingColumn)_INDEX")) ON \(q(join.name)) (\(q(join.namingColumn)), \(q(join.otherColumn)))")
        }
        return statements + keptIndexSQL + Self.bookkeepingSQL
    }
}

extension CoreDataLayout {
    /// The Core Data layout of `layout`, itself or under a template's table definitions; nil
    /// for any other layout.
    public static func of(_ layout: any StoreLayout) -> CoreDataLayout? {
        (layout as? CoreDataLayout) ?? ((layout as? TemplatedLayout)?.base as? CoreDataLayout)
    }
}
