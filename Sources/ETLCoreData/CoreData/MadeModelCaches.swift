import Foundation
import ETLModel

/// The `Z_MODELCACHE` contents made so far in this process, by model and version
/// identifiers. A batch writes the same destination model's cache into each of its stores
/// (thousands of stores, a few models), and archiving a model costs more than the rest of
/// a small store's copy (a Bookmarks store: 37 M of the run's 192 M instructions, counted by
/// callgrind); comparing two models costs a small part of that.
final class MadeModelCaches: @unchecked Sendable {
    static let shared = MadeModelCaches()

    private struct Made {
        let model: Model
        let versionIdentifiers: [String]
        let content: Result<[UInt8], ModelCacheWriter.Unwritable>
    }

    private let lock = NSLock()
    private var made: [Made] = []
    /// Enough for every destination model of a batch's kinds of store; the oldest goes first.
    private let limit = 8

    /// The content of `model`'s cache: one made before, or `make`'s. What it makes is kept,
    /// and so is a model found `Unwritable`; any other error is thrown, not kept.
    func content(of model: Model, versionIdentifiers: [String], make: () throws -> [UInt8]) throws -> [UInt8] {
        let earlier = lock.withLock { made.first { $0.versionIdentifiers == versionIdentifiers && $0.model == model } }
        if let earlier { return try earlier.content.get() }
        let content: Result<[UInt8], ModelCacheWriter.Unwritable>
        do {
            content = .success(try make())
        } catch let unwritable as ModelCacheWriter.Unwritable {
            content = .failure(unwritable)
        }
        lock.withLock {
            made.append(Made(model: model, versionIdentifiers: versionIdentifiers, content: content))
            if made.count > limit { made.removeFirst() }
        }
        return try content.get()
    }
}
