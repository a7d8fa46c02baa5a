import Foundation

/// How many helper threads SQLite's sorter may use on the run's connection
/// (`PRAGMA threads`): the second core's share of the work that sorts — every index built
/// after the load, a uniqueBy mapping's grouping, and the links a relate statement inserts
/// in key order.
///
/// A sort that outgrows its memory is split into runs that the helper threads sort and
/// merge beside the connection's own thread; the result is the same as on one thread. A
/// small sort never leaves memory and starts no thread, so small stores pay nothing. With
/// one core there is nobody to help. Each helper sorts in memory of its own: the books
/// step at 1M books peaked at 71.8 MiB instead of 59.9 MiB.
///
/// Measured on 2 cores (`sqlite3 .timer`), the books step's two index builds at 1M books
/// took 1.32–1.45 s with no helper, 1.07–1.28 s with 1, 0.96–1.12 s with 2.
enum SorterThreads {
    static var count: Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return cores > 1 ? min(cores, 4) : 0
    }

    static var pragma: String { "PRAGMA threads = \(count)" }
}
