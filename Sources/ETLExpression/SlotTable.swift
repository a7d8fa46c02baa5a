/// The paths read by all expressions of one entity mapping, each distinct path once.
///
/// Compiling an expression registers every path it reads and bakes the slot index into
/// the compiled form; the engine then reads `paths` to build its queries and fills
/// `EvaluationContext.slots` in the same order, one value per path.
///
/// `@unchecked Sendable`: the table is mutated only while a mapping's expressions are
/// compiled, which happens on one thread before any evaluation; afterwards it is only read.
public final class SlotTable: @unchecked Sendable {
    public private(set) var paths: [SourcePath] = []
    private var indices: [SourcePath: Int] = [:]

    public init() {}

    /// The slot of a path, registering it when it is new.
    public func slot(for path: SourcePath) -> Int {
        if let index = indices[path] { return index }
        let index = paths.count
        paths.append(path)
        indices[path] = index
        return index
    }

    /// The slot of a path if it is registered, without registering it.
    public func existingSlot(for path: SourcePath) -> Int? {
        indices[path]
    }
}
