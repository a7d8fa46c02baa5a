import Foundation
import Dispatch
import ETL

/// Turns SIGINT and SIGTERM into a graceful stop: the first one asks the engine to finish
/// the chunk being loaded and save a checkpoint; a second one exits at once (the last
/// checkpoint is still valid, so the run resumes all the same).
final class SignalTrap: @unchecked Sendable {
    let cancellation = Cancellation()
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        // Over the file size limit (ulimit -f), writes must fail with an error the engine
        // reports and resumes from, not kill the process.
        Platform.ignoreSignal(SIGXFSZ)
        for number in [SIGINT, SIGTERM] {
            Platform.ignoreSignal(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [unowned self] in self.handle(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal received, if any.
    var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// The documented exit status for a run stopped by `signal`: 128 + its number.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    private func handle(_ number: Int32) {
        lock.lock()
        let first = received == nil
        if first { received = number }
        lock.unlock()
        if first {
            FileHandle.standardError.write(Data("\nstopping after the chunk being loaded (press Ctrl-C again to stop at once)…\n".utf8))
            cancellation.cancel()
        } else {
            FileHandle.standardError.write(Data("stopped at once; run the same command again to resume from the last checkpoint\n".utf8))
            exit(Self.exitStatus(for: number))
        }
    }
}
