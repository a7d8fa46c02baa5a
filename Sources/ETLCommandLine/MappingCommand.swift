import ArgumentParser
import Foundation
import ETL

/// `etl mapping show`: an Xcode mapping model as the pipeline step etl runs for it.
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Xcode mapping models (.xcmappingmodel): see the pipeline step etl runs for one.",
        subcommands: [MappingShowCommand.self])
}

struct MappingShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a mapping model as a pipeline step (JSON), to read or to take over and edit.",
        discussion: """
            The step is what a bundle pipeline's { "from": …, "to": …, "mappingModel": FILE } \
            step runs: paste it into the pipeline's "steps" to edit it. What the translation \
            leaves out (mappings that make no rows, relationships set from their inverse side) \
            is said on stderr. An expression etl cannot translate is an error naming the \
            entity mapping, the property and the expression.

            The mapping model's two versions are looked up in the model bundle its recorded \
            paths name, beside the mapping model or in a folder above it, or in --models.

            Example:
              etl mapping show MappingModels/V2toV3.xcmappingmodel
              etl mapping show V2toV3.xcmappingmodel --models SampleModel.xcdatamodeld
            """)

    @Argument(help: "The mapping model: a Name.xcmappingmodel folder or its xcmapping.xml.")
    var mappingModel: String

    @Option(help: "The model bundle (Name.xcdatamodeld) holding the mapping model's two versions (default: found beside the mapping model or above it).")
    var models: String?

    func run() throws {
        let mapping = try XCMappingModel.load(path: mappingModel)
        guard let bundlePath = models ?? mapping.findModelBundle() else {
            throw CLIFailure(message: "\(mappingModel): cannot find the model bundle of \(mapping.sourceModelPath) beside the mapping model or above it: name it with --models", code: ExitStatus.badInput)
        }
        let bundle = try ModelBundle.load(path: bundlePath)
        func version(_ name: String, _ side: String) throws -> Model {
            guard let model = try bundle.model(named: name) else {
                throw CLIFailure(message: "\(mappingModel): its \(side) model is version \(name), which \(bundlePath) does not have (versions: "
                                 + bundle.names.joined(separator: ", ") + ")", code: ExitStatus.badInput)
            }
            return model
        }
        let step = try MappingModelImport.step(mapping, source: try version(mapping.sourceVersion, "source"),
                                               destination: try version(mapping.destinationVersion, "destination"))
        for note in step.notes {
            FileHandle.standardError.write(Data("note: \(note)\n".utf8))
        }
        print(step.json(), terminator: "")
    }
}
