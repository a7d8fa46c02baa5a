import ArgumentParser
import Foundation
import ETL

/// `etl mapping show`: an Xcode mapping model as the pipeline step etl runs for it.
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Xcode mapping models (.xcmappingmodel): see the pipeline step etl runs for one, or start porting its policies.",
        subcommands: [MappingShowCommand.self, MappingPortCommand.self])
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
            entity mapping, the property and the expression. The step is planned before it is \
            printed, as etl plan would: one the plan refuses is an error naming the place in the \
            mapping model (--no-check prints it anyway, to edit).

            The mapping model's two versions are the versions of its model bundle whose \
            version hashes are those of the models it archives (as Core Data finds a mapping \
            model), whatever names it recorded; a mapping model made for models the bundle no \
            longer has is refused (--no-check prints it anyway, against the versions it names). \
            The bundle is --models, else the one its recorded paths name, beside the mapping \
            model, above it, or in a folder near it (a Model/ folder beside MappingModels/).

            Example:
              etl mapping show MappingModels/V2toV3.xcmappingmodel
              etl mapping show V2toV3.xcmappingmodel --models SampleModel.xcdatamodeld
            """)

    @Argument(help: "The mapping model: a Name.xcmappingmodel folder or its xcmapping.xml.")
    var mappingModel: String

    @Option(help: "The model bundle (Name.xcdatamodeld) holding the mapping model's two versions (default: found beside the mapping model, above it or near it).")
    var models: String?

    @Flag(help: "Print the step without planning it first (to edit a step etl plan refuses).")
    var noCheck = false

    func run() throws {
        let hop = try MappingModelHop.find(mappingModel, models: models, checked: !noCheck)
        let mapping = hop.mapping
        let step = try MappingModelImport.step(mapping, source: hop.source, destination: hop.destination)
        for note in step.notes {
            FileHandle.standardError.write(Data("note: \(note)\n".utf8))
        }
        let toPort = ShownStepCheck.classesToPort(mapping)
        if !toPort.isEmpty {
            FileHandle.standardError.write(Data(("note: not planned: the step needs the migration policy classes " + toPort.joined(separator: ", ")
                + " ported to etl policies first (etl mapping port \(mappingModel) --swift DIR)\n").utf8))
        } else if !noCheck {
            do {
                try ShownStepCheck(mapping: mapping, bundle: hop.bundlePath, from: hop.source.version, to: hop.destination.version).plan()
            } catch {
                throw CLIFailure(message: "\(error)\n\(mappingModel): the step it imports to is refused by etl plan (above), so it is not printed: "
                                 + "etl mapping show --no-check prints it to edit", code: ExitStatus.badInput)
            }
        }
        print(step.json(), terminator: "")
    }
}

/// `etl mapping port`: Swift policy skeletons for the migration policy classes a mapping model names.
struct MappingPortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "Write a Swift policy to fill in for each migration policy class a mapping model names.",
        discussion: """
            One file per class, CLASS.swift in the --swift folder, which compiles against the \
            ETL library as written: an etl Policy with the class's entity mappings and their \
            source fields named, and one ExpressionFunction per FUNCTION($entityPolicy, \
            "selector:", …) its value expressions call, typed from the fields involved. An \
            existing file is not overwritten.

            Example:
              etl mapping port MappingModels/V2toV3.xcmappingmodel --swift Sources/MyPolicies
            """)

    @Argument(help: "The mapping model: a Name.xcmappingmodel folder or its xcmapping.xml.")
    var mappingModel: String

    @Option(help: "The model bundle (Name.xcdatamodeld) holding the mapping model's two versions (default: found beside the mapping model, above it or near it).")
    var models: String?

    @Option(help: "The folder to write the Swift files into (made if missing).")
    var swift: String

    func run() throws {
        let hop = try MappingModelHop.find(mappingModel, models: models)
        let files = PolicySkeleton.files(hop.mapping, source: hop.source, destination: hop.destination)
        guard !files.isEmpty else {
            FileHandle.standardError.write(Data("note: \(mappingModel) names no migration policy class: nothing to port\n".utf8))
            return
        }
        try FileManager.default.createDirectory(atPath: swift, withIntermediateDirectories: true)
        for file in files {
            let path = URL(fileURLWithPath: swift).appendingPathComponent(file.name).path
            guard !FileManager.default.fileExists(atPath: path) else {
                throw CLIFailure(message: "\(path) exists: etl does not overwrite a port (move it away to write it again)", code: ExitStatus.badInput)
            }
            try Data(file.text.utf8).write(to: URL(fileURLWithPath: path))
            print(path)
        }
    }
}
