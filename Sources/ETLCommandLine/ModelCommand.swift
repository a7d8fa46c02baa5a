import ArgumentParser
import Foundation
import ETL

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Work with model files.",
        subcommands: [FromStore.self])

    struct FromStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "from-store",
            abstract: "Write the model of an existing store as a JSON model file, to start a pipeline from.",
            discussion: """
                A plain store's schema is read: each table with an id INTEGER PRIMARY KEY is an \
                entity, each column an attribute (its type from the declared type, required when \
                NOT NULL), a column NAME_id referencing a table a to-one NAME, a table \
                Entity_relationship of source_id and target_id a many-to-many whose inverse is \
                named after Entity in the plural. What a schema cannot say comes back as its most \
                common reading (INTEGER is integer64, REAL double, BLOB binary): edit the file \
                where your app means otherwise. See docs/pipeline.md, "The plain layout".

                A Core Data store's tables do not say its attribute types, but since about 2017 \
                the store keeps the model that wrote it (Z_MODELCACHE): that model is written. \
                With --models, the bundle's version the store matches is written instead (the \
                store is the check). --xcdatamodel writes the model as Xcode's XML \
                (OUT.xcdatamodel/contents), to put back into a bundle (an app built with \
                SwiftData, a lost model version); delete rules come out as Nullify.

                The store is opened read-only. The model goes to standard output.

                Examples:
                  etl model from-store data/books-v1.sqlite > models/books-v1.json
                  etl model from-store notes.sqlite --version notes-v1 > notes-v1.json
                  etl model from-store Example.sqlite --models Model.xcdatamodeld > v2.json
                  etl model from-store Example.sqlite --xcdatamodel "Model 7.xcdatamodel"
                """)

        @Argument(help: "The store file.")
        var store: String

        @Option(help: "The model's version name (default: the store's file name without extension; with --models, the detected version's name).")
        var version: String?

        @Option(help: ArgumentHelp("A model bundle (Name.xcdatamodeld), or JSON model files (repeat): write the version among them the store is at.", valueName: "bundle-or-model"))
        var models: [String] = []

        @Option(help: ArgumentHelp("Write the model as Xcode's XML into this folder (its contents file) instead of JSON to standard output.", valueName: "Name.xcdatamodel"))
        var xcdatamodel: String?

        func run() throws {
            let model = try StoreModel.read(path: store, version: version, models: models)
            guard let xcdatamodel else {
                print(ModelFileWriter.json(model), terminator: "")
                return
            }
            let contents = URL(fileURLWithPath: xcdatamodel).appendingPathComponent("contents")
            // Refused before anything is written: a name XML cannot hold.
            let xml: String
            do {
                xml = try XCDataModelWriter.xml(model)
            } catch {
                throw CLIFailure(message: "\(store): \(error)", code: ExitStatus.badInput)
            }
            do {
                try FileManager.default.createDirectory(atPath: xcdatamodel, withIntermediateDirectories: true)
                try Data(xml.utf8).write(to: contents, options: .atomic)
            } catch {
                throw CLIFailure(message: "\(contents.path): cannot write the model: \(error.localizedDescription)")
            }
            print("wrote \(model.entities.count) entities of \(store) to \(contents.path)")
        }
    }
}
