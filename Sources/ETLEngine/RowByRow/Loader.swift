import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// The load stage of one entity mapping: the single writer. Inserts a chunk's rows in
/// one transaction, handing out keys in load order, deduplicating by uniqueBy key,
/// recording each source row's association and keeping rejected rows — so rows,
/// associations, lookup table and rejects always agree. Prepared statements live as long
/// as the stage.
final class Loader {
    private struct TargetStatements {
        let table: String
        /// Rows keep their source row's key (`StepPlan.sourceKeyTargets`).
        let keepsSourceKey: Bool
        let defaults: [SQLValue]
        let insert: Statement
        let associate: Statement
        let associateEndOfMapping: Statement
        let findUnique: Statement
        let addUnique: Statement
        /// With kept keys: records the associations of the rows kept in a range of source
        /// keys at once (bound to the range), instead of one insert per row.
        let associateKept: Statement?
    }

    private let context: StepContext
    private let index: MappingID
    private var targets: [TargetID: TargetStatements] = [:]

    init(context: StepContext, index: MappingID) throws {
        self.context = context
        self.index = index
        let layout = context.plan.destinationLayout
        let db = context.destination
        let work = WorkDatabase(attachedTo: db)
        let q = Database.quote
        let keeping = context.plan.sourceKeyTargets
        let scopes = context.plan.uniqueKeyScopes
        for target in context.plan.mappings[index].targets {
            let plan = context.plan.targets[target]
            let destination = layout.table(of: plan.entity)
            let columns = [destination.keyColumn] + destination.insertDefaults.map(\.column)
                + plan.attributes.map { layout.column(ofAttribute: $0.attribute.name, entity: plan.entity) }
            targets[target] = TargetStatements(
                table: destination.name,
                keepsSourceKey: keeping.contains(target),
                defaults: destination.insertDefaults.map(\.value),
                insert: try db.prepare("INSERT INTO \(q(destination.name)) (" + columns.map(q).joined(separator: ", ") + ") VALUES ("
                                       + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"),
                associate: try work.prepareAssociate(target: target),
                associateEndOfMapping: try work.prepareAssociateEndOfMapping(target: target),
                // Keys are looked up in the target's scope: rows of the same entity another
                // mapping of the step made under the same key are found too.
                findUnique: try work.prepareFindUniqueKey(scope: scopes[target]),
                addUnique: try work.prepareAddUniqueKey(scope: scopes[target]),
                associateKept: keeping.contains(target) ? try work.prepareAssociateKeptRows(target: target, of: destination) : nil)
        }
    }

    func load(_ result: Transformer.Result) throws {
        // Before the rows: a kill in between leaves a file no row names, never a row
        // without its file; a resume finds the file there and does not copy it again.
        for row in result.rows {
            for name in row.externalFiles {
                try ExternalBinaryStorage.place(name, from: WorkArea.externalFolder(ofStore: context.sourcePath),
                                                to: WorkArea.externalFolder(ofStore: context.destination.path))
            }
        }
        try context.destination.transaction {
            var kept: [TargetID: ClosedRange<Int64>] = [:]
            for row in result.rows {
                if let key = try load(row) { kept[row.target] = kept[row.target].map { $0.lowerBound...key } ?? key...key }
            }
            for (target, keys) in kept {
                try targets[target]!.associateKept!.run([.integer(keys.lowerBound), .integer(keys.upperBound)])
            }
            try context.keep(result.rejects, mapping: index)
        }
        let own = context.plan.mappings[index].ownTarget
        context.counters[own].read += result.read
        context.counters[own].filtered += result.filtered
        context.counters[own].rejected += result.rejects.count
        context.counters[own].nullsOnPurpose += result.nullsOnPurpose
        try context.checkRejects(result.rejects)
    }

    /// Inserts rows an end-of-mapping hook made (associated with no source row).
    func load(endOfMapping rows: [Transformer.NewRow]) throws {
        try context.destination.transaction {
            for row in rows { try load(row, endOfMapping: true) }
        }
    }

    /// Returns the row's key when it kept its source key: its association is recorded with
    /// the chunk's other kept rows (`associateKept`), all the work a kept key leaves.
    @discardableResult
    private func load(_ row: Transformer.NewRow, endOfMapping: Bool = false) throws -> Int64? {
        let target = targets[row.target]!
        let associate = endOfMapping ? target.associateEndOfMapping : target.associate
        if let unique = row.unique {
            try target.findUnique.bind([unique])
            let existing = try target.findUnique.step() ? target.findUnique.int64(0) : nil
            target.findUnique.reset()
            if let existing {
                try associate.run([.integer(existing), .integer(row.sourceKey), .integer(row.item)])
                context.counters[row.target].associated += 1
                return nil
            }
        }
        let keeps = target.keepsSourceKey && row.keepsSourceKey
        let key = keeps ? context.keepKey(row.sourceKey, table: target.table) : try context.allocateKey(table: target.table)
        // Bound in place, in the insert's column order (key, defaults, the target's attributes):
        // no array is built per row.
        try target.insert.bind(.integer(key), at: 1)
        for (offset, value) in target.defaults.enumerated() { try target.insert.bind(value, at: 2 + offset) }
        for (offset, value) in row.values.enumerated() { try target.insert.bind(value, at: 2 + target.defaults.count + offset) }
        try target.insert.run()
        if let unique = row.unique {
            try target.addUnique.run([unique, .integer(key), .integer(row.sourceKey)])
        }
        if !keeps { try associate.run([.integer(key), .integer(row.sourceKey), .integer(row.item)]) }
        context.counters[row.target].associated += 1
        context.counters[row.target].written += 1
        return keeps ? key : nil
    }
}
