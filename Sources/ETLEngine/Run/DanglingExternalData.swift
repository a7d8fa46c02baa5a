import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// Values of a Core Data store whose external-data marker names a file the store already
/// lacked (the app lost it before): a step that passes such a value through carries the
/// marker as it is, as Core Data's own migration does, instead of rejecting the row
/// (`Transformer`); a value that must be read is still rejected. Nothing is lost silently:
/// once the step is done, the markers without their file in the new store's folder are
/// counted (in the store, so a resumed step counts the same), and the run's notes say how
/// many, per attribute.
struct DanglingExternalData {
    let step: StepPlan

    func notes(in db: Database) throws -> [String] {
        guard let layout = CoreDataLayout.of(step.destinationLayout) else { return [] }
        let folder = WorkArea.externalFolder(ofStore: db.path)
        var notes: [String] = []
        for entity in layout.model.entities where !entity.isAbstract {
            for attribute in entity.attributes where attribute.allowsExternalStorage {
                let table = layout.table(of: entity.name)
                let column = Database.quote(layout.column(ofAttribute: attribute.name, entity: entity.name))
                // Rows of the declaring entity and the sub-entities inheriting the attribute.
                let numbers = layout.model.descendants(of: entity.name).compactMap { layout.entityNumber(of: $0) }.map(String.init)
                let markers = try db.rows("SELECT t.\(column) FROM main.\(Database.quote(table.name)) t WHERE substr(t.\(column), 1, 1) = x'02' "
                                          + "AND t.Z_ENT IN (\(numbers.joined(separator: ", ")))")
                let missing = markers.filter { row in
                    guard case .blob(let marked) = row[0], let name = ExternalBinaryStorage.fileName(of: marked) else { return false }
                    return !FileManager.default.fileExists(atPath: folder + "/" + name)
                }.count
                if missing > 0 {
                    notes.append("step \(step.name): \(missing) value\(missing == 1 ? "" : "s") of \(entity.name).\(attribute.name) keep\(missing == 1 ? "s" : "") "
                                 + "an external-data marker whose file the source store already lacked: carried as \(missing == 1 ? "it is" : "they are"), "
                                 + "without the bytes, as Core Data carries them")
                }
            }
        }
        return notes
    }
}
