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

                A Core Data store's tables do not say its attribute types: give its bundle with \
                --models, and the version the store matches is written (the store is the check).

                The store is opened read-only. The model goes to standard output.

                Examples:
                  etl model from-store data/books-v1.sqlite > models/books-v1.json
                  etl model from-store notes.sqlite --version notes-v1 > notes-v1.json
                  etl model from-store Example.sqlite --models Model.xcdatamodeld > v2.json
                """)

        @Argument(help: "The store file.")
        var store: String

        @Option(help: "The model's version name (default: the store's file name without extension; with --models, the detected version's name).")
        var version: String?

        @Option(help: ArgumentHelp("A model bundle (Name.xcdatamodeld), or JSON model files (repeat): write the version among them the store is at.", valueName: "bundle-or-model"))
        var models: [String] = []

        func run() throws {
            print(ModelFileWriter.json(try StoreModel.read(path: store, version: version, models: models)), terminator: "")
        }
    }
}
