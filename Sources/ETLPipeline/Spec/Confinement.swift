import Foundation
import ETLModel
import ETLExpression

extension PipelineSpec {
    /// With `--confine`: refuses a pipeline whose paths (stores, models, template, mapping models) lead
    /// outside the pipeline file's folder — through `..`, an absolute path or a symlink —
    /// so a pipeline from elsewhere cannot make etl read or write beyond its folder.
    public func checkConfined() throws {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().resolvingSymlinksInPath().standardizedFileURL.path
        func check(_ path: String?, _ cursor: JSONCursor?) throws {
            guard let path, let cursor else { return }
            let resolved = Self.resolvingExistingPart(of: path)
            guard resolved == folder || resolved.hasPrefix(folder + "/") else {
                throw cursor.error("\(path) is outside the pipeline's folder \(folder), which --confine forbids")
            }
        }
        try check(source.store, source.storeCursor)
        try check(source.model, source.modelCursor)
        try check(destination.store, destination.storeCursor)
        try check(destination.model, destination.modelCursor)
        try check(destination.template, destination.templateCursor)
        try check(models, modelsCursor)
        for bundle in mergedModels { try check(bundle, modelsCursor) }
        if models == nil {
            for step in steps { try check(step.to, step.toCursor) }
        }
        for step in steps {
            for path in step.mappingModels { try check(path, step.mappingModelCursor) }
        }
    }

    /// The path with symlinks resolved in the part of it that exists (the rest may not
    /// exist yet: a destination), so a symlinked folder inside cannot lead outside.
    static func resolvingExistingPart(of path: String) -> String {
        var existing = URL(fileURLWithPath: path).standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in rest { resolved.appendPathComponent(component) }
        return resolved.standardizedFileURL.path
    }
}
