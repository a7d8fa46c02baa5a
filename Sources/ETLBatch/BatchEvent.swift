import Foundation

/// What a batch tells while it runs: enough for a progress display or a log.
/// Delivered from the threads running stores, one at a time.
public struct BatchEvent: Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case batchStarted = "batch-started"
        case storeStarted = "store-started"
        /// A store's run continues an interrupted one (`message` says where).
        case storeResumed = "store-resumed"
        case storeFinished = "store-finished"
        case batchFinished = "batch-finished"
    }
    public var kind: Kind
    /// Seconds since 1970.
    public var time: Double
    /// Stores in this batch.
    public var total: Int
    /// Stores with an outcome (done, skipped, failed), those of earlier runs included.
    public var finished: Int
    /// Of `finished`: those recorded by an earlier run of the same batch.
    public var finishedBefore: Int
    /// Stores being migrated now (relative paths).
    public var running: [String]
    /// The store this event is about (relative path).
    public var store: String?
    /// With `storeFinished`.
    public var result: BatchStoreResult?
    /// With `storeResumed`: where the run continues.
    public var message: String?
}
