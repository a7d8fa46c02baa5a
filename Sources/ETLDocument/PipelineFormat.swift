/// The pipeline format, version 1, described once: every key, where it may appear, its
/// value's type and its line of docs/pipeline.md. Each place's keys are listed in the order
/// the decoder lists them ("allowed here: …") and docs/pipeline.md's tables show them.
public enum PipelineFormat {
    public static let version = 1

    /// The top level of a pipeline file.
    public enum Top {
        public static let format = PipelineKey("format", .pipeline, .integer, required: "yes", meaning: "`1`")
        public static let models = PipelineKey("models", .pipeline, .paths, required: "no", meaning:
            "a model bundle, `Name.xcdatamodeld` (see [Model bundles](#model-bundles-progressive-and-inferred-migration)), or a list of bundles merged into one model")
        public static let mappingModels = PipelineKey("mappingModels", .pipeline, .pathOrFalse, required: "no, with `models`", meaning:
            "the folder where a hop without an explicit step finds the Xcode mapping model Core Data would find (default: the bundle's own folder); `false`: none (see [Model bundles](#model-bundles-progressive-and-inferred-migration))")
        public static let source = PipelineKey("source", .pipeline, .object(.store), required: "yes", meaning:
            #"`{ "store": PATH, "model": MODEL_FILE, "layout": "plain" }` — the store to read (never modified); with `models`, `"version"` instead of `"model"` (optional: detected from the store); a Core Data source without `"model"` uses the model kept in its store (see [Models kept in stores](#models-kept-in-stores))"#)
        public static let destination = PipelineKey("destination", .pipeline, .object(.destination), required: "yes", meaning:
            #"the same keys: the store to write and its model version (with `models`: `"version"`, default the bundle's current one); instead of `"model"`, `"modelFrom": STORE` takes the model kept in a store the app's new version wrote; with `"layout": "coredata"` also `"template"` and `"newStoreUUID": true` (a store UUID of its own instead of the source's)"#)
        public static let options = PipelineKey("options", .pipeline, .object(.options), required: "no", meaning:
            #"`{ "chunkSize": 1000, "workers": CORES, "maxRejects": 0, "unreadable": "reject" }` — source rows per chunk (1…1,000,000), worker queues (1…256), rows that may be rejected before the run fails, and what every mapping does with a stored value its type does not read (`"reject"` or `"null"`, see [Reading stored values](#reading-stored-values)); `etl run --chunk-size/--workers` override the first two"#)
        public static let steps = PipelineKey("steps", .pipeline, .list(.object(.step)), required: "yes, without `models` (unless a model comes from a store)",
                                              meaning: "one or more steps, in order")
        public static let drop = PipelineKey("drop", .pipeline, .list(.string), required: "no", meaning:
            #"what the steps may leave unread of their sources, data and all: `["Tag.color", "Note"]` (a source `Entity.property` or `Entity`, its sub-entities included; a relationship with its inverse); see [Every value arrives](#every-value-arrives-or-the-pipeline-says-why-not). An entry for a step this store's path does not take is a note (one pipeline serves stores of every version); one that names nothing of any model version is an error, naming the closest entity or property ("did you mean 'Post.color'?")"#)
        public static let danglingLinks = PipelineKey("danglingLinks", .pipeline, .choiceOrMap(["reject", "drop"]), required: "no", meaning:
            #"what to do with a link of the source that names no row (a to-one's key `999` no row has, or `'8x'`; a join table's pair `(6, 999)`): `"reject"` (the default) or `"drop"`, for every relationship, or `{ "Folder.parent": "drop", "*": "reject" }` per relationship (source names); see [Links to no row](#links-to-no-row)"#)

        static let tables = #"what to do with the source's tables that belong to no entity: `"drop"` or `"carry"`; see [Tables that belong to no entity](#tables-that-belong-to-no-entity)"#
        static let schemaObjects = #"what to do with the source's triggers, views and virtual tables (FTS5, R*Tree): `"drop"` or `"carry"`; see [Tables that belong to no entity](#tables-that-belong-to-no-entity)"#
        static func unmodeled(_ name: String, _ required: String, _ meaning: String) -> PipelineKey {
            PipelineKey(name, .pipeline, .choice(["drop", "carry"]), required: required, meaning: meaning)
        }
        public static let history = unmodeled("history", "when the source has such tables", tables)
        public static let cloudKit = unmodeled("cloudKit", "when the source has such tables", tables)
        public static let otherTables = unmodeled("otherTables", "when the source has such tables", tables)
        public static let triggers = unmodeled("triggers", "when the source has such", schemaObjects)
        public static let views = unmodeled("views", "when the source has such", schemaObjects)
        public static let virtualTables = unmodeled("virtualTables", "when the source has such", schemaObjects)

        public static let all = [format, models, mappingModels, source, destination, options, steps, drop, danglingLinks,
                                 history, cloudKit, otherTables, triggers, views, virtualTables]
    }

    /// `"options"`.
    public enum Options {
        public static let chunkSize = PipelineKey("chunkSize", .options, .integer, meaning: "source rows per chunk (1…1,000,000)")
        public static let workers = PipelineKey("workers", .options, .integer, meaning: "worker queues (1…256)")
        public static let maxRejects = PipelineKey("maxRejects", .options, .integer, meaning: "rows that may be rejected before the run fails")
        public static let unreadable = PipelineKey("unreadable", .options, .choice(["reject", "null"]),
                                                   meaning: "what every mapping does with a stored value its type does not read")

        public static let all = [chunkSize, workers, maxRejects, unreadable]
    }

    /// `"source"` and `"destination"`.
    public enum Store {
        public static let store = PipelineKey("store", .store, .path, meaning: "the store file")
        public static let model = PipelineKey("model", .store, .path, meaning: "its model file (without `models`)")
        public static let version = PipelineKey("version", .store, .string, meaning: "its version in the model bundle (with `models`)")
        public static let layout = PipelineKey("layout", .store, .choice(["plain", "coredata"]), meaning: "how its tables are laid out")
        public static let template = PipelineKey("template", .store, .path, meaning: "an empty store the app created at the destination's version")

        public static let all = [store, model, version, layout, template]
    }

    /// `"destination"` only.
    public enum Destination {
        public static let newStoreUUID = PipelineKey("newStoreUUID", .destination, .boolean, meaning: "a store UUID of its own instead of the source's")
        public static let modelFrom = PipelineKey("modelFrom", .destination, .path, meaning: "a store whose kept model is the target model")

        public static let all = Store.all + [newStoreUUID, modelFrom]
    }

    /// An element of `"steps"`.
    public enum Step {
        public static let name = PipelineKey("name", .step, .string, required: "no", meaning: "shown in progress and summary; default `step N`")
        public static let from = PipelineKey("from", .step, .string, needsBundle: true, required: "with `models`",
                                             meaning: "the bundle version this step starts from")
        public static let to = PipelineKey("to", .step, .path, required: "every step but the last; with `models`, every step", meaning:
            "the model file this step produces (the last step produces `destination.model`); with `models`, the version it produces")
        public static let mappings = PipelineKey("mappings", .step, .list(.object(.mapping)), required: "yes", meaning: "entity mappings, run in the order written")
        public static let mappingModel = PipelineKey("mappingModel", .step, .paths, needsBundle: true, required: "instead of `mappings`, with a bundle", meaning:
            "an Xcode mapping model, `Name.xcmappingmodel`: its entity mappings are the step's (see [Xcode mapping models](#xcode-mapping-models))")
        public static let drop = PipelineKey("drop", .step, .list(.string), required: "no",
                                             meaning: "as the top-level `drop`, for this step only; an entry naming nothing the step leaves unread is an error")

        public static let all = [name, from, to, mappings, mappingModel, drop]

        /// The keys a step takes: with a bundle every one, else those that need none.
        public static func keys(bundle: Bool) -> [PipelineKey] {
            all.filter { bundle || !$0.needsBundle }
        }
    }

    /// An element of a step's `"mappings"`.
    public enum Mapping {
        public static let name = PipelineKey("name", .mapping, .string, meaning: "the mapping's name, used by `destination()`; default `SourceToDestination`")
        public static let source = PipelineKey("source", .mapping, .string, meaning: "entity names in the step's source and destination models")
        public static let destination = PipelineKey("destination", .mapping, .string, meaning: "entity names in the step's source and destination models")
        public static let filter = PipelineKey("filter", .mapping, .expression,
                                               meaning: "boolean expression; rows for which it is not `true` are skipped (and counted as filtered)")
        public static let attributes = PipelineKey("attributes", .mapping, .expressions, meaning:
            #"`{ "destinationAttribute": EXPRESSION, … }`. Attributes not listed get the model's default value, or null"#)
        public static let relationships = PipelineKey("relationships", .mapping, .expressions, meaning:
            #"`{ "destinationRelationship": EXPRESSION, … }`, set in the relate stage"#)
        public static let uniqueBy = PipelineKey("uniqueBy", .mapping, .expression, meaning:
            "expression: one destination row per distinct value (the first source row with a value makes the row; later ones are associated with it). Null values are not deduplicated. Mappings of a step that make rows of the same entity with `uniqueBy` (or with a policy's `uniqueKey`) share their keys: one row per value across them (such mappings run row by row)")
        public static let forEach = PipelineKey("forEach", .mapping, .expression,
                                                meaning: "to-many path such as `$source.users`: one destination row per element, available as `$item`")
        public static let policy = PipelineKey("policy", .mapping, .string, meaning:
            "name of a Swift policy registered by the program (`ETLCommand.main(policies:)`, see the README); `etl` itself registers none, so naming one is an error that lists what is registered. Rows a policy creates of another entity `E` are found with `destination('Mapping/E', …)`, so no other mapping of the step may be named `Mapping/E` (an error). A policy made with `Policy(prepare:)` has its fields resolved when the pipeline is planned (`etl plan` and `run`): a field the mapping's entities lack, or of another type, is an error naming the policy, the mapping and the field, before anything is read")
        public static let unreadable = PipelineKey("unreadable", .mapping, .choiceOrMap(["null", "reject"]), meaning:
            #"`"null"` or `"reject"` for every value the mapping reads, or `{ "sourceAttribute": "null", … }` for some attributes of its source entity: what the mapping does with a stored value the reading rule does not read (see [Reading stored values](#reading-stored-values)); default: the pipeline's `options.unreadable`, else `"reject"`. A name that is no attribute of the source entity is an error with the closest name"#)

        public static let all = [name, source, destination, filter, attributes, relationships, uniqueBy, forEach, policy, unreadable]
    }

    /// The keys of a place, in order.
    public static func keys(in place: PipelineKey.Place) -> [PipelineKey] {
        switch place {
        case .pipeline: return Top.all
        case .options: return Options.all
        case .store: return Store.all
        case .destination: return Destination.all
        case .step: return Step.all
        case .mapping: return Mapping.all
        }
    }
}
