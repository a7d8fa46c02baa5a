/// The ranges of the numbers a user gives on the command line or through the library:
/// checked before any work, so no arithmetic on them can trap (a Double turned into an
/// Int32 of milliseconds, a chunk size multiplied into a transaction's rows) and no
/// value outside what the run can honour is taken silently.
public enum OptionLimits {
    /// Seconds to wait for a locked source: SQLite's busy timeout is an Int32 of milliseconds.
    public static let lockTimeout: ClosedRange<Double> = 0...2_147_483
    /// Seconds the batch watchdog gives a store: up to a year.
    public static let storeTimeout: ClosedRange<Double> = 0.001...31_536_000
    /// Source rows per chunk: as a pipeline's options.chunkSize.
    public static let chunkSize: ClosedRange<Int> = 1...1_000_000
    /// Worker queues of one run: as a pipeline's options.workers.
    public static let workers: ClosedRange<Int> = 1...256
    /// Stores a batch migrates at the same time.
    public static let jobs: ClosedRange<Int> = 1...1024
    /// Books of `etl sample`.
    public static let sampleRows: ClosedRange<Int> = 0...100_000_000

    /// Why `value` cannot be `option`, or nil when it is finite and in `range`.
    public static func problem(_ option: String, _ value: Double, in range: ClosedRange<Double>, unit: String) -> String? {
        guard value.isFinite, range.contains(value) else {
            return "\(option) must be a number of \(unit) from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(value)"
        }
        return nil
    }

    /// Why `value` cannot be `option`, or nil when it is in `range`.
    public static func problem(_ option: String, _ value: Int, in range: ClosedRange<Int>) -> String? {
        range.contains(value) ? nil : "\(option) must be between \(range.lowerBound) and \(range.upperBound), not \(value)"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A number given to the library outside `OptionLimits` (the command line refuses it
/// first, with exit code 2).
public struct OptionError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}
