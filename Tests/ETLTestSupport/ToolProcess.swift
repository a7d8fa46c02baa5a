import Foundation

/// How a program of this package ended.
public struct ToolRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Killed by the signal `killWhen` asked for (not merely exited after it was sent).
    public var killed: Bool

    public init(status: Int32, stdout: String, stderr: String, killed: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.killed = killed
    }
}

/// A program of this package (`etl`, `post-sections`, …) run as a user runs it: in a
/// folder, with its output captured, optionally stopped by a signal when a line it writes
/// to standard error (e.g. a `--progress json` event) says so.
public enum ToolProcess {
    /// A program built beside the test bundle, or any absolute path.
    public static func executable(_ program: String) -> URL {
        program.hasPrefix("/") ? URL(fileURLWithPath: program) : Bundle.main.bundleURL.appendingPathComponent(program)
    }

    /// Runs `program` with `arguments` in `folder` (the test's own folder, normally). Each
    /// line of standard error is passed to `killWhen`; the first time it answers true the
    /// process gets `signal`. Both pipes are drained to the end, so neither can fill up and
    /// block the child.
    public static func run(_ arguments: [String], program: String = "etl", in folder: URL? = nil,
                           environment: [String: String]? = nil, signal: Int32 = SIGKILL,
                           killWhen: ((Substring) -> Bool)? = nil) throws -> ToolRun {
        let process = Process()
        process.executableURL = executable(program)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = Collected()
        let stdoutHandle = out.fileHandleForReading
        let reader = Thread { stdout.finish(stdoutHandle.readDataToEndOfFile()) }
        reader.start()
        var stderr = Data()
        var pending = Data()
        var signalled = false
        while true {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            stderr.append(chunk)
            guard let killWhen, !signalled else { continue }
            pending.append(chunk)
            while !signalled, let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if killWhen(Substring(line)) {
                    kill(process.processIdentifier, signal)
                    signalled = true
                }
            }
        }
        process.waitUntilExit()
        return ToolRun(status: process.terminationStatus, stdout: String(decoding: stdout.wait(), as: UTF8.self),
                       stderr: String(decoding: stderr, as: UTF8.self),
                       killed: signalled && process.terminationReason == .uncaughtSignal)
    }

    /// Standard output, read on its own thread.
    private final class Collected: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()
        func finish(_ data: Data) { self.data = data; done.signal() }
        func wait() -> Data { done.wait(); return data }
    }
}
