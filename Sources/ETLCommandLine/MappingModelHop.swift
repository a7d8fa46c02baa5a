import Foundation
import ETL

/// The hop an Xcode mapping model was made for, as `etl mapping show` and `port` find it:
/// its model bundle, and the bundle's two versions whose version hashes are those of the
/// models the file archives (what Core Data compares), so that a version renamed since is
/// found, and a file made for models the bundle no longer has is refused whatever it needs.
///
///     let hop = try MappingModelHop.find("V2toV3.xcmappingmodel", models: nil)
///     hop.source.version   // "SampleModel2"
///
/// The bundle: `--models`, else the bundle the file's recorded model paths name, looked for
/// in the mapping model's folder and the folders above it, each with its subfolders a few
/// levels down (a `Model/` folder beside `MappingModels/`), nearest first.
struct MappingModelHop {
    let mapping: XCMappingModel
    let bundlePath: String
    let source: Model
    let destination: Model

    /// Where the search for a bundle goes up, and down below each folder.
    static let levelsUp = 4, levelsDown = 3

    /// - Parameter checked: false (`--no-check`): a file whose archived models are no version
    ///   of the bundle takes the versions its recorded paths name, to be printed and edited.
    static func find(_ mappingModel: String, models: String?, checked: Bool = true) throws -> MappingModelHop {
        let mapping = try XCMappingModel.load(path: mappingModel)
        guard let bundlePath = models ?? mapping.findModelBundle() ?? nearbyBundle(of: mapping) else {
            throw CLIFailure(message: "\(mapping.file): cannot find the model bundle of \(mapping.sourceModelPath) beside the mapping model, above it "
                             + "or in a folder near it: name it with --models", code: ExitStatus.badInput)
        }
        let bundle = try ModelBundle.load(path: bundlePath)
        func version(_ isSource: Bool) throws -> Model {
            let (side, recorded) = isSource ? ("source", mapping.sourceVersion) : ("destination", mapping.destinationVersion)
            let matches = bundle.versions.filter { mapping.match(source: isSource, with: $0) == .sameHashes }
            // Versions with the same hashes (a change the hashes do not cover): the recorded name decides.
            if let found = matches.first(where: { $0.version == recorded }) ?? matches.first { return found }
            let named = try bundle.model(named: recorded)
            if checked, let named, case .differs(let entity, let reason) = mapping.match(source: isSource, with: named) {
                throw CLIFailure(message: "\(mapping.file): was made for \(mapping.sourceVersion) → \(mapping.destinationVersion), but the \(side) model it "
                    + "archives is no version of \(bundlePath): it differs from version \(recorded) in entity \(entity): \(reason). The step is refused "
                    + "by etl plan, so it is not printed: remake the mapping model in Xcode between the hop's two versions "
                    + "(etl mapping show --no-check prints it to edit)", code: ExitStatus.badInput)
            }
            if let named { return named }
            throw CLIFailure(message: "\(mapping.file): its \(side) model is version \(recorded), which \(bundlePath) does not have, and no version has "
                             + "the hashes of the model it archives (versions: \(bundle.names.joined(separator: ", ")))", code: ExitStatus.badInput)
        }
        return MappingModelHop(mapping: mapping, bundlePath: bundlePath, source: try version(true), destination: try version(false))
    }

    /// The bundle the file's recorded paths name, in a folder near the mapping model.
    static func nearbyBundle(of mapping: XCMappingModel) -> String? {
        guard let name = mapping.sourceModelPath.split(separator: "/").last(where: { $0.hasSuffix(".xcdatamodeld") }).map(String.init) else { return nil }
        var folder = URL(fileURLWithPath: mapping.path).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<levelsUp {
            if let found = search(folder.path, for: name, depth: levelsDown) { return found }
            guard folder.path != "/" else { break }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// A folder `name` under `folder`, breadth first, not inside bundles or mapping models;
    /// at most 2,000 folders are looked into (a mapping model near the root of a big tree).
    static func search(_ folder: String, for name: String, depth: Int) -> String? {
        let fm = FileManager.default
        var level = [folder]
        var visited = 0
        for _ in 0...depth {
            var next: [String] = []
            for current in level {
                visited += 1
                guard visited <= 2_000 else { return nil }
                guard let entries = try? fm.contentsOfDirectory(atPath: current) else { continue }
                for entry in entries.sorted() where !entry.hasPrefix(".") {
                    let path = (current as NSString).appendingPathComponent(entry)
                    var isDirectory: ObjCBool = false
                    guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
                    if entry == name { return path }
                    if !entry.hasSuffix(".xcdatamodeld") && !entry.hasSuffix(".xcmappingmodel") { next.append(path) }
                }
            }
            level = next
        }
        return nil
    }
}
