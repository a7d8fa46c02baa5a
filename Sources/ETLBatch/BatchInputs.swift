import Foundation
import ETL

/// What made a batch's results, besides each store: the pipeline's content, every model,
/// mapping model and `modelFrom` store the pipeline reads (by content hash), the policies
/// registered, the options that change a result, and etl's version. Each manifest entry
/// names the inputs it was made with (`BatchStoreResult.inputs`, their `digest`); a rerun
/// whose inputs differ migrates those stores again (or, with `--report-stale`, reports
/// them stale) and says what changed.
///
/// Only what the pipeline reads counts: a bundle's `.xccurrentversion` and its versions'
/// files, the mapping models Core Data would look for (`*.xcmappingmodel` in the mapping
/// models folder), named model files and stores. Another file beside them changes nothing.
public struct BatchInputs: Sendable, Codable, Equatable {
    /// FNV-1a 64 of the pipeline file's bytes.
    public var pipeline: String
    /// Each file read, by absolute path: FNV-1a 64 of its bytes ("missing" when absent).
    public var files: [String: String]
    /// Policy names registered with the batch (a program's own), sorted.
    public var policies: [String]
    /// The options of each store's run that change its result (`maxRejects`, `checkSource`).
    public var options: [String: String]
    /// etl's version.
    public var etl: String

    /// One hash of all of it: what a manifest entry records.
    public var digest: String {
        var hash = BatchHash()
        hash.add(pipeline)
        for (path, content) in files.sorted(by: { $0.key < $1.key }) { hash.add("\u{0}\(path)\u{0}\(content)") }
        hash.add("\u{1}" + policies.joined(separator: "\u{0}"))
        for (name, value) in options.sorted(by: { $0.key < $1.key }) { hash.add("\u{2}\(name)=\(value)") }
        hash.add("\u{3}" + etl)
        return hash.hex
    }

    /// The inputs of a batch now: the pipeline file read (not planned) and every file it
    /// names hashed whole.
    public static func of(pipeline: String, run: RunOptions) throws -> BatchInputs {
        let spec = try Migration(pipeline: pipeline, options: run).spec()
        var paths: [String] = []
        if let bundle = spec.models { paths += bundleFiles(bundle) }
        for bundle in spec.mergedModels { paths += bundleFiles(bundle) }
        if let folder = spec.mappingModelsFolder {
            for mappingModel in MappingModelCatalog.paths(in: folder) { paths += filesBelow(mappingModel) }
        }
        for store in [spec.source, spec.destination] {
            if let model = store.model { paths += filesOf(model) }
            if let template = store.template { paths += filesOf(template) }
        }
        if let reference = spec.destination.modelFrom { paths += [reference, reference + "-wal"] }
        for step in spec.steps {
            // A step's `to` is a model file without a bundle, a version's name with one.
            if spec.models == nil { paths += filesOf(step.to) }
            for mappingModel in step.mappingModels { paths += filesOf(mappingModel) }
        }
        var files: [String: String] = [:]
        for path in paths {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            files[absolute] = contentHash(absolute)
        }
        // A reference store's `-wal` counts only while there is one.
        for (path, hash) in files where path.hasSuffix("-wal") && hash == missing { files[path] = nil }
        var options: [String: String] = ["checkSource": String(run.checkSource)]
        if let maxRejects = run.maxRejects { options["maxRejects"] = String(maxRejects) }
        return BatchInputs(pipeline: BatchHash.hex(spec.bytes), files: files, policies: run.policies.policies.keys.sorted(),
                           options: options, etl: ETLVersion.current)
    }

    /// What differs from `recorded` (the inputs an entry was made with), each as a phrase:
    /// "the pipeline upgrade.json was edited", "Model.xcdatamodeld/.xccurrentversion changed".
    public func differences(from recorded: BatchInputs, pipelineFile: String) -> [String] {
        var found: [String] = []
        if pipeline != recorded.pipeline { found.append("the pipeline \((pipelineFile as NSString).lastPathComponent) was edited") }
        for path in Set(files.keys).union(recorded.files.keys).sorted() {
            switch (recorded.files[path], files[path]) {
            case let (before?, now?) where before == now: continue
            case (nil, _?), (Self.missing?, _?): found.append("\(path) was added")
            case (_?, Self.missing?), (_?, nil): found.append("\(path) was removed")
            default: found.append("\(path) changed")
            }
        }
        if policies != recorded.policies {
            found.append("the policies registered changed from [\(recorded.policies.joined(separator: ", "))] to [\(policies.joined(separator: ", "))]")
        }
        for name in Set(options.keys).union(recorded.options.keys).sorted() where options[name] != recorded.options[name] {
            found.append("the option \(name) changed from \(recorded.options[name] ?? "unset") to \(options[name] ?? "unset")")
        }
        if etl != recorded.etl { found.append("etl changed from version \(recorded.etl) to \(etl)") }
        return found
    }

    static let missing = "missing"

    /// A bundle's files as its reader reads them: `.xccurrentversion` and every version's files.
    private static func bundleFiles(_ bundle: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle)) ?? []
        return [(bundle as NSString).appendingPathComponent(".xccurrentversion")]
            + names.filter { $0.hasSuffix(".xcdatamodel") }.sorted().flatMap { filesBelow((bundle as NSString).appendingPathComponent($0)) }
    }

    /// A file, or every file below a folder (a `.xcdatamodel` or `.xcmappingmodel`).
    private static func filesOf(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        return filesBelow(path)
    }

    private static func filesBelow(_ folder: String) -> [String] {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: folder) else { return [folder] }
        return names.sorted().map { (folder as NSString).appendingPathComponent($0) }.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// A whole file's hash; `missing` when it cannot be read.
    static func contentHash(_ path: String) -> String {
        BatchHash.ofFile(path) ?? missing
    }
}
