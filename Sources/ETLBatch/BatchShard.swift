import Foundation
import ETL

/// One share of a batch's stores: `index` of `count` (0-based), for running a batch as
/// several processes or machines (`etl batch --shard 1/4`, a Kubernetes Indexed Job, a
/// Slurm array).
///
/// A store belongs to the shard that a stable hash of its relative path picks: FNV-1a (64
/// bits), mixed, then a jump consistent hash (Lamping & Veach) over `count` buckets. So:
/// - the answer depends on the path and the count only: every process agrees, on every
///   machine and in every run (never Swift's per-process randomized `hashValue`);
/// - adding or removing stores moves no other store; going from N to N+1 shards moves about
///   1/(N+1) of them;
/// - shares are balanced statistically (not exactly: a few stores more or less).
public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole batch: one shard.
    public static let all = BatchShard(uncheckedIndex: 0, count: 1)

    /// The most shards a batch splits into (more than a Slurm array may have): keeps every
    /// sum of indices and counts far from overflowing.
    public static let maximumCount = 10_000_000

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw BatchShardError("the shard count must be at least 1, not \(count)") }
        guard count <= Self.maximumCount else { throw BatchShardError("the shard count must be at most \(Self.maximumCount), not \(count)") }
        guard (0..<count).contains(index) else {
            throw BatchShardError("shard index \(index) is not between 0 and \(count - 1) (the count is \(count); indices start at 0)")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `I/N` as the command line writes it.
    public var description: String { "\(index)/\(count)" }

    /// For file names: `shard-1-of-4`.
    public var fileTag: String { "shard-\(index)-of-\(count)" }

    public var isWhole: Bool { count == 1 }

    /// `path` with `{shard}` replaced by `shard-I-of-N` (`all` for the whole batch), made
    /// absolute against `currentDirectory`: shards given one command line (a report, metrics
    /// or manifest file, an output folder) write files of their own.
    public func expand(_ path: String, in currentDirectory: String = FileManager.default.currentDirectoryPath) -> String {
        BatchStoreList.absolute(path.replacingOccurrences(of: "{shard}", with: isWhole ? "all" : fileTag), in: currentDirectory)
    }

    /// Parses `INDEX/COUNT`, e.g. `0/4`.
    public static func parse(_ text: String) throws -> BatchShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let count = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw BatchShardError("--shard takes INDEX/COUNT (like 0/4, indices from 0) or auto, not '\(text)'")
        }
        return try BatchShard(index: index, count: count)
    }

    /// Whether the store at `relativePath` belongs to this shard.
    public func contains(_ relativePath: String) -> Bool {
        BatchShard.shard(of: relativePath, count: count) == index
    }

    /// The shard (0..<count) a relative path belongs to.
    public static func shard(of relativePath: String, count: Int) -> Int {
        precondition(count >= 1)
        return jump(key: mix(fnv1a(Array(relativePath.utf8))), buckets: count)
    }

    /// FNV-1a, 64 bits.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// SplitMix64's finalizer: spreads FNV's bits (paths that differ in their last
    /// characters only differ mostly in the low bits).
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Jump consistent hash: a bucket in 0..<buckets; growing `buckets` by one moves a key
    /// only to the new bucket, and only 1/buckets of the keys.
    static func jump(key: UInt64, buckets: Int) -> Int {
        var key = key
        var b: Int64 = -1
        var j: Int64 = 0
        while j < Int64(buckets) {
            b = j
            key = key &* 2_862_933_555_777_941_757 &+ 1
            j = Int64(Double(b + 1) * (Double(Int64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(b)
    }

    // MARK: --shard auto

    /// The shard a job scheduler gave this process, from its environment:
    ///
    /// - a Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based), and the number of shards
    ///   from `shardCount` (`--shard-count`) or `ETL_SHARD_COUNT` (Kubernetes does not
    ///   pass the Job's `completions` to the pod: set it in the pod's env);
    /// - a Slurm job array: `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT` (an array
    ///   that starts above 0, like `--array=1-4`, counts from `SLURM_ARRAY_TASK_MIN`).
    ///
    /// Throws a `BatchShardError` saying what is missing or does not fit.
    public static func fromEnvironment(_ environment: [String: String], shardCount: Int? = nil) throws -> (shard: BatchShard, origin: String) {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        // Every value is an index or a count: 0 or more and at most `maximumCount`, so that
        // the arithmetic below (maximum − minimum + 1, id − minimum) cannot overflow.
        func integer(_ name: String) throws -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text) else { throw BatchShardError("\(name)='\(text)' is not a whole number") }
            guard (0...Self.maximumCount).contains(number) else {
                throw BatchShardError("\(name)=\(text) is out of range: an index or a count from 0 to \(Self.maximumCount)")
            }
            return number
        }
        let configured = try integer("ETL_SHARD_COUNT")
        if let shardCount, let configured, shardCount != configured {
            throw BatchShardError("--shard-count \(shardCount) and ETL_SHARD_COUNT=\(configured) disagree: give the number of shards once")
        }
        let explicitCount = shardCount ?? configured
        let kubernetes = value("JOB_COMPLETION_INDEX") != nil
        let slurm = value("SLURM_ARRAY_TASK_ID") != nil
        if kubernetes && slurm {
            throw BatchShardError("--shard auto found both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm): pass --shard INDEX/COUNT instead")
        }
        if kubernetes {
            let index = try integer("JOB_COMPLETION_INDEX")!
            guard let count = explicitCount else {
                throw BatchShardError("--shard auto found JOB_COMPLETION_INDEX=\(index) (a Kubernetes Indexed Job) but not the number of shards: "
                                      + "pass --shard-count N or set ETL_SHARD_COUNT to the Job's spec.completions")
            }
            guard count >= 1 else { throw BatchShardError("the number of shards must be at least 1, not \(count)") }
            guard (0..<count).contains(index) else {
                throw BatchShardError("JOB_COMPLETION_INDEX=\(index) is not below the number of shards \(count): "
                                      + "--shard-count / ETL_SHARD_COUNT must equal the Job's spec.completions")
            }
            return (try BatchShard(index: index, count: count), "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=\(index), \(count) shards)")
        }
        if slurm {
            let id = try integer("SLURM_ARRAY_TASK_ID")!
            guard let arrayCount = try integer("SLURM_ARRAY_TASK_COUNT") else {
                throw BatchShardError("--shard auto found SLURM_ARRAY_TASK_ID=\(id) but not SLURM_ARRAY_TASK_COUNT: run it as a Slurm job array (sbatch --array=0-N)")
            }
            let minimum = try integer("SLURM_ARRAY_TASK_MIN") ?? 0
            if let maximum = try integer("SLURM_ARRAY_TASK_MAX"), maximum - minimum + 1 != arrayCount {
                throw BatchShardError("the Slurm array \(minimum)-\(maximum) has \(arrayCount) tasks, not \(maximum - minimum + 1): "
                                      + "--shard auto needs a contiguous array without steps, like --array=0-\(arrayCount - 1)")
            }
            if let explicitCount, explicitCount != arrayCount {
                throw BatchShardError("SLURM_ARRAY_TASK_COUNT=\(arrayCount) but the number of shards is set to \(explicitCount) (--shard-count or ETL_SHARD_COUNT): they must agree")
            }
            let index = id - minimum
            guard arrayCount >= 1, (0..<arrayCount).contains(index) else {
                throw BatchShardError("SLURM_ARRAY_TASK_ID=\(id) does not fit an array of \(arrayCount) tasks starting at \(minimum): use a contiguous array like --array=0-\(max(arrayCount - 1, 0))")
            }
            return (try BatchShard(index: index, count: arrayCount), "Slurm array task \(id) (\(arrayCount) tasks)")
        }
        throw BatchShardError("--shard auto needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, with --shard-count or ETL_SHARD_COUNT) "
                              + "or SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm job array); neither is set. "
                              + "Elsewhere pass --shard INDEX/COUNT")
    }
}

/// A `--shard` that cannot be used: bad usage (exit code 2).
public struct BatchShardError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
