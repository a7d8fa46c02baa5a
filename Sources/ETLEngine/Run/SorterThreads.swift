import Foundation

/// How many helper threads SQLite's sorter may use on the run's connection
/// (`PRAGMA threads`): the second core's share of the work that sorts — every index built
/// after the load, a uniqueBy mapping's grouping, and the links a relate statement inserts
/// in key order.
///
/// A sort that outgrows its memory is split into runs that the helper threads sort and
/// merge beside the connection's own thread; the result is the same as on one thread. A
/// small sort never leaves memory and starts no thread, so small stores pay nothing. With
/// one core there is nobody to help. Each helper sorts in memory of its own, so a run with
/// helpers peaks higher: the time they save is worth that memory.
///
/// Worked out once a process, not per connection: Foundation's count of cores reads the
/// cgroup's CPU quota and set (two files) each time, and a batch opens a connection or
/// two per store. The count changes no result, only how a large sort is shared out.
enum SorterThreads {
    static let count: Int = {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return cores > 1 ? min(cores, 4) : 0
    }()

    static let pragma = "PRAGMA threads = \(count)"
}
