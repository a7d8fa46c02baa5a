import Foundation
import ETL
import ETLDocument

/// What `etl mapping show` prints is a step `etl plan` accepts: before printing it, the
/// mapping model is planned as a bundle pipeline's step between its two versions (the same
/// import, the same type checks as a run's), and a step the plan refuses is not printed but
/// reported with the plan's error, naming the place in the `xcmapping.xml`.
///
/// A step that needs migration policy classes ported first (a mapping's policy, or
/// `FUNCTION($entityPolicy, …)`) cannot be planned without them: it is printed with a
/// note saying so (`etl mapping port` starts the port).
struct ShownStepCheck {
    let mapping: XCMappingModel
    let bundle: String
    let from: String
    let to: String

    /// The policy classes the step needs and no program has registered here.
    static func classesToPort(_ mapping: XCMappingModel) -> [String] {
        var classes: [String] = []
        // (The import makes every entity mapping with a class an etl policy of its name.)
        for m in mapping.entityMappings {
            guard let name = m.policyClassName, !classes.contains(name) else { continue }
            classes.append(name)
        }
        return classes
    }

    /// Plans the step; throws the plan's error where it refuses it.
    func plan() throws {
        // Named, never read nor written: the versions are given, so planning opens no store,
        // and the pipeline is a value, so no file is written for it either.
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("etl-mapping-show-\(UUID().uuidString)")
        func absolute(_ path: String) -> String {
            URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
        }
        typealias Top = PipelineFormat.Top
        typealias Store = PipelineFormat.Store
        typealias Step = PipelineFormat.Step
        func end(_ store: String, version: String) -> PipelineValue {
            .members([Store.store: .string(folder.appendingPathComponent(store).path), Store.layout: .string("coredata"), Store.version: .string(version)])
        }
        let pipeline = PipelineValue.members([
            Top.format: .integer(PipelineFormat.version), Top.models: .string(absolute(bundle)),
            Top.source: end("source.sqlite", version: from), Top.destination: end("destination.sqlite", version: to),
            Top.steps: .list([.members([Step.from: .string(from), Step.to: .string(to), Step.mappingModel: .string(absolute(mapping.path))])], .inline)])
        let file = folder.appendingPathComponent("mapping-show.json").path
        // What `etl plan` runs, on the same pipeline. Its errors name the mapping model's
        // places; one at the step itself (the pipeline made here) is the mapping model's
        // as a whole.
        do {
            _ = try PlanReport.make(Migration(pipeline: pipeline, file: file))
        } catch let error as DocumentError where error.file == file {
            throw DocumentError(file: mapping.file, line: 0, column: 0, path: "$", message: error.message)
        }
    }
}
