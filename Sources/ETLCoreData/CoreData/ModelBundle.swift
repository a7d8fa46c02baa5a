import Foundation
import ETLModel

/// The versions of an Xcode model bundle (`Name.xcdatamodeld`), imported as `Model`s.
///
///     let bundle = try ModelBundle.load(path: "Model.xcdatamodeld")
///     bundle.versions.map(\.version)   // ["v1.0.0", "v1.1.0", …]
///     bundle.currentVersion            // "v2.0.0", from .xccurrentversion
///
/// A version's name is its folder's name without `.xcdatamodel`. Versions are listed in
/// numeric-aware name order ("Model" < "Model 2" < "Model 10", "v1.9" < "v1.10"): a stable
/// order, which is not necessarily the order the versions were made in; migrations name
/// their versions explicitly.
///
/// The bundle loads version by version, as Core Data compiles each on its own: a version
/// that cannot be read is kept as `unreadable`, with its error (file:line), and refuses only
/// a run that needs it (`model(named:)`); the others are `versions`.
public struct ModelBundle: Sendable {
    /// The `.xcdatamodeld` folder.
    public var path: String
    /// The versions that could be read, in the bundle's order.
    public var versions: [Model]
    /// Every version's name, readable or not, in the bundle's order.
    public var names: [String]
    /// The versions that could not be read, by name, with why.
    public var unreadable: [String: DocumentError]
    /// The version `.xccurrentversion` names (without `.xcdatamodel`); nil when the bundle has no such file.
    public var currentVersion: String?

    public init(path: String, versions: [Model], currentVersion: String?,
                names: [String]? = nil, unreadable: [String: DocumentError] = [:]) {
        self.path = path
        self.versions = versions
        self.names = names ?? versions.map(\.version)
        self.unreadable = unreadable
        self.currentVersion = currentVersion
    }

    /// The version named `name`; nil when the bundle has no such version, and the version's
    /// own error when it could not be read.
    public func model(named name: String) throws -> Model? {
        let bare = Self.stripExtension(name)
        if let error = unreadable[bare] { throw error }
        return version(named: bare)
    }

    /// The version named `name` ("v1.1.0"; a trailing ".xcdatamodel" is ignored).
    public func version(named name: String) -> Model? {
        let bare = Self.stripExtension(name)
        return versions.first { $0.version == bare }
    }

    /// The current version's model, if `.xccurrentversion` names one.
    public var current: Model? { currentVersion.flatMap(version(named:)) }

    /// Reads every `*.xcdatamodel/contents` of a `.xcdatamodeld` folder and its `.xccurrentversion`.
    public static func load(path: String) throws -> ModelBundle {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "/", message: "no such model bundle (expected a Name.xcdatamodeld folder)")
        }
        guard isDirectory.boolValue else {
            throw DocumentError(file: path, line: 0, column: 0, path: "/",
                                message: "not a folder: a model bundle is a Name.xcdatamodeld folder holding Version.xcdatamodel folders")
        }
        let names: [String]
        do {
            names = try fm.contentsOfDirectory(atPath: path)
        } catch {
            throw DocumentError(file: path, line: 0, column: 0, path: "/", message: "cannot list the model bundle: \(error.localizedDescription)")
        }
        let folders = names.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { stripExtension($0).compare(stripExtension($1), options: [.numeric]) == .orderedAscending }
        guard !folders.isEmpty else {
            throw DocumentError(file: path, line: 0, column: 0, path: "/",
                                message: "the model bundle holds no Version.xcdatamodel folder (found: \(names.sorted().joined(separator: ", ")))")
        }
        let root = URL(fileURLWithPath: path)
        var versions: [Model] = []
        var unreadable: [String: DocumentError] = [:]
        for folder in folders {
            do {
                versions.append(try loadVersion(path: root.appendingPathComponent(folder).path))
            } catch let error as DocumentError {
                unreadable[stripExtension(folder)] = error
            }
        }
        let versionNames = folders.map(stripExtension)
        // No version to run with: the bundle as a whole is refused, with the first version's reason.
        if versions.isEmpty, let first = versionNames.first, let error = unreadable[first] { throw error }

        var current: String?
        let marker = root.appendingPathComponent(".xccurrentversion").path
        if fm.fileExists(atPath: marker) {
            let name = try CurrentVersionFile.versionName(file: marker)
            let bare = stripExtension(name)
            guard versionNames.contains(bare) else {
                throw DocumentError(file: marker, line: 0, column: 0, path: "/",
                                    message: "_XCCurrentVersionName names '\(name)', which is not a version of the bundle (versions: "
                                        + versionNames.joined(separator: ", ") + ")")
            }
            current = bare
        }
        return ModelBundle(path: path, versions: versions, currentVersion: current, names: versionNames, unreadable: unreadable)
    }

    /// Reads one version: a `Foo.xcdatamodel` folder or its `contents` file. The model's
    /// version is the folder's name without `.xcdatamodel`.
    public static func loadVersion(path: String) throws -> Model {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "/", message: "no such model version (expected a Version.xcdatamodel folder or its contents file)")
        }
        let url = URL(fileURLWithPath: path)
        let contents = isDirectory.boolValue ? url.appendingPathComponent("contents") : url
        let folder = isDirectory.boolValue ? url : url.deletingLastPathComponent()
        guard let data = fm.contents(atPath: contents.path) else {
            let hint = isDirectory.boolValue && fm.fileExists(atPath: url.appendingPathComponent("elements").path)
                ? " (this is the old binary model format: open and save the model in a recent Xcode)" : ""
            throw DocumentError(file: contents.path, line: 0, column: 0, path: "/", message: "cannot read the model version's contents file (missing or not readable)\(hint)")
        }
        let version = folder.lastPathComponent.hasSuffix(".xcdatamodel")
            ? stripExtension(folder.lastPathComponent)
            : contents.deletingPathExtension().lastPathComponent
        return try XCDataModelReader.read(data, file: contents.path, version: version)
    }

    static func stripExtension(_ name: String) -> String {
        name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }
}
