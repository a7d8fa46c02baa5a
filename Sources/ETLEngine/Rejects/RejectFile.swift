import Foundation
import ETLStore

/// Rejected rows, kept beside the destination as `DESTINATION.rejects.jsonl.zst`: JSON
/// lines (one `Reject` each), zstd-compressed with frame checksums. Each step's rejects
/// live in its work file (committed with their chunk) until the step ends; then they are
/// written to a per-step file, and the run joins those into one (zstd frames concatenate).
public struct RejectFile: Sendable {
    public let path: String
    private let area: WorkArea

    public init(destination: String) {
        area = WorkArea(destination: destination)
        path = area.rejects
    }

    func stepFile(_ step: Int) -> String { area.rejects(ofStep: step) }

    /// Writes the step's rejects from its work file (replacing an earlier export of the same step).
    func export(step: Int, from db: Database) throws {
        let records = try WorkDatabase(attachedTo: db).rejectRecords()
        let file = stepFile(step)
        guard !records.isEmpty else { WorkArea.remove(file); return }
        var text = ""
        for json in records { text += json + "\n" }
        try Data(try Zstd.compress(Array(text.utf8))).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    /// Joins the steps' files into the reject file; returns its path, or nil when nothing was
    /// rejected. The steps' files stay (the run's cleanup removes them), so joining again
    /// gives the same file.
    func combine(stepCount: Int) throws -> String? {
        var frames = Data()
        for step in 0..<stepCount {
            if let data = FileManager.default.contents(atPath: stepFile(step)) { frames.append(data) }
        }
        guard !frames.isEmpty else {
            WorkArea.remove(path)
            return nil
        }
        try frames.write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }

    /// Reads a reject file.
    public static func read(_ path: String) throws -> [Reject] {
        var rejects: [Reject] = []
        try forEach(path) { rejects.append($0) }
        return rejects
    }

    /// The longest record read: far above any real one (a few KiB of values).
    public static let maxRecord = 16 << 20

    /// Calls `body` with each record of a reject file as it is read, in bounded memory
    /// (`ZstdLines`): `etl rejects` prints a file of any size, or a crafted one, without
    /// holding it whole.
    public static func forEach(_ path: String, _ body: (Reject) throws -> Void) throws {
        // Refused at once, as a source is: reading a FIFO would wait forever on its writer.
        if let kind = OwnFile.specialKind(at: path) {
            throw MigrationError.badDestination(path: path, reason: "is \(kind), not a reject file: a reject file is a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MigrationError.badDestination(path: path, reason: "cannot read the reject file")
        }
        let decoder = JSONDecoder()
        var number = 0
        do {
            try ZstdLines.read(path, maxLine: maxRecord) { line in
                number += 1
                guard !line.isEmpty else { return }
                let record: Reject
                do { record = try decoder.decode(Reject.self, from: Data(line)) } catch {
                    throw MigrationError.badDestination(path: path, reason: "line \(number) is not a reject record")
                }
                try body(record)
            }
        } catch let failure as Zstd.Failure {
            throw MigrationError.badDestination(path: path, reason: "the reject file is damaged or not one (line \(number + 1): \(failure))")
        }
    }
}
