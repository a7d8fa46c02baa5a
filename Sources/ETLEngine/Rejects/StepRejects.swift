import Foundation
import ETLStore
import ETLPipeline
import ETLExpression

/// The rejected rows of a step, kept in its work database as its stages find them, and the
/// run's limit on them.
extension StepContext {
    /// Fails the run once more rows were rejected than allowed, showing the first ones.
    func checkRejects(_ new: [Reject]) throws {
        guard !new.isEmpty else { return }
        let total = priorRejects + counters.reduce(0) { $0 + $1.rejected }
        guard total > maxRejects else { return }
        let decoder = JSONDecoder()
        let first = try WorkDatabase(attachedTo: destination).rejectRecords(limit: 5).compactMap {
            try? decoder.decode(Reject.self, from: Data($0.utf8))
        }
        throw MigrationError.tooManyRejects(limit: maxRejects, first: first.isEmpty ? new : first)
    }

    /// Stores reject records in the work file, inside the caller's transaction.
    func keep(_ rejects: [Reject], mapping: MappingID) throws {
        guard !rejects.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let insert = try WorkDatabase(attachedTo: destination).prepareReject(mapping: mapping)
        for record in rejects {
            try insert.run([.integer(record.key), .text(String(decoding: try encoder.encode(record), as: UTF8.self))])
        }
    }
}
