import Foundation
import ETL

/// What a batch is asked to do.
@dynamicMemberLookup
public struct BatchOptions: Sendable {
    public enum Output: Sendable, Equatable {
        /// Results go to `DIR/RELATIVE_PATH`; the stores are only read.
        case directory(String)
        /// Each store is replaced by its result once that result passed validation; the
        /// original is kept as `STORE.bak`, or moved to `backupDirectory/RELATIVE_PATH`.
        case inPlace(backupDirectory: String?)
    }

    /// The pipeline file every store goes through (its source and destination paths are
    /// replaced per store).
    public var pipeline: String
    /// The stores of this batch (of this shard).
    public var stores: [BatchStore]
    public var output: Output
    /// The manifest file (see `BatchManifest`).
    public var manifest: String
    /// Stores migrated at the same time.
    public var jobs: Int
    /// The options of each store's run (`RunOptions`; `options.workers` and the others
    /// read and write it). One worker by default, so memory stays bounded by `jobs` runs
    /// of one worker each (see the README's memory figures). Its `replace`, `restart` and
    /// `cancellation` are the batch's to set per store.
    public var run = RunOptions(workers: 1)
    /// Forget the manifest and every store's checkpoint, and start over.
    public var restart = false
    /// Migrate the stores the manifest records as failed again.
    public var retryFailed = false
    /// Files below the stores' folder whose names are not UTF-8 (`BatchStoreList.unnamed`):
    /// not migrated, and listed in the report.
    public var unnamed: [String] = []
    /// Cancel it to stop: no store is started after that, and running ones stop after
    /// their chunk being loaded (each run is given it), recorded as interrupted.
    public var cancellation: Cancellation?
    /// The watchdog: a store's run that takes longer is stopped after its chunk being
    /// loaded and recorded as failed (its work kept: a rerun with a larger limit resumes it).
    public var storeTimeout: TimeInterval?
    /// `--report-stale`: a store whose outcome was made with other inputs (`BatchInputs`: the
    /// pipeline, a model, a policy, etl…) is reported stale and left as it is, instead of
    /// migrated again.
    public var reportStale = false
    /// `--verify-sources`: each source is hashed whole when recorded and when checked, for
    /// archives whose modification times cannot be trusted.
    public var verifySources = false
    /// Written in the manifest's header and the report.
    public var shard: BatchShard = .all
    public init(pipeline: String, stores: [BatchStore], output: Output, manifest: String, jobs: Int) {
        self.pipeline = pipeline
        self.stores = stores
        self.output = output
        self.manifest = manifest
        self.jobs = jobs
    }

    public subscript<Value>(dynamicMember option: WritableKeyPath<RunOptions, Value>) -> Value {
        get { run[keyPath: option] }
        set { run[keyPath: option] = newValue }
    }
}
