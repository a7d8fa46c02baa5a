import Foundation
import ETL
import ETLBatch

/// Shows a batch's progress on standard error: a status line on a terminal (stores done /
/// total, the stores being migrated, rate, ETA), a log line per store otherwise, or every
/// event as one JSON object per line.
final class BatchProgressDisplay: @unchecked Sendable {
    private let style: ProgressStyle
    private let jobs: Int
    private let lock = NSLock()
    private var started = Date()
    private var finishedAtStart = 0
    private var lastDraw = Date.distantPast
    /// Made once: a formatter per line cost more than a small store's rows.
    private let timestamps = ISO8601DateFormatter()
    private var drawn = false
    private var last: BatchEvent?
    private let encoder = JSONEncoder()

    private var timer: DispatchSourceTimer?

    init(style: ProgressStyle, jobs: Int) {
        self.style = style == .auto ? (isatty(STDERR_FILENO) == 1 ? .bar : .lines) : style
        self.jobs = jobs
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if self.style == .bar {
            // Redrawn twice a second between events too: the rate and ETA move while stores run.
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
            timer.setEventHandler { [weak self] in self?.refresh() }
            timer.resume()
            self.timer = timer
        }
    }

    private func refresh() {
        lock.lock()
        defer { lock.unlock() }
        if let last, last.kind != .batchFinished { draw(last, force: true) }
    }

    /// A line of its own (above the status line on a terminal).
    func note(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard style != .json && style != .none else { return }
        clear()
        write(text + "\n")
    }

    func show(_ event: BatchEvent) {
        lock.lock()
        defer { lock.unlock() }
        last = event
        switch style {
        case .json:
            if let data = try? encoder.encode(event) { write(String(decoding: data, as: UTF8.self) + "\n") }
        case .none, .auto:
            break
        case .lines:
            logLine(event)
        case .bar:
            barEvent(event)
        }
    }

    /// Ends a status line left drawn.
    func end() {
        timer?.cancel()
        timer = nil
        lock.lock()
        defer { lock.unlock() }
        last = nil
        clear()
    }

    private func logLine(_ event: BatchEvent) {
        switch event.kind {
        case .batchStarted:
            started = Date(timeIntervalSince1970: event.time)
            finishedAtStart = event.finished
            let earlier = event.finishedBefore > 0 ? ", \(event.finishedBefore) already recorded by an earlier run" : ""
            write("[\(timestamp())] batch of \(event.total) stores\(earlier); \(jobs) at a time\n")
        case .storeStarted:
            break
        case .storeResumed:
            write("[\(timestamp())] \(event.store ?? "?"): \(event.message ?? "resuming")\n")
        case .storeFinished:
            guard let result = event.result else { return }
            write("[\(timestamp())] \(event.finished)/\(event.total) \(Self.describe(result))\n")
        case .batchFinished:
            write("[\(timestamp())] batch ended: \(event.finished) of \(event.total) stores have an outcome\n")
        }
    }

    private func barEvent(_ event: BatchEvent) {
        switch event.kind {
        case .batchStarted:
            started = Date(timeIntervalSince1970: event.time)
            finishedAtStart = event.finished
            draw(event, force: true)
        case .storeStarted:
            draw(event, force: true)
        case .storeResumed:
            clear()
            write("\(event.store ?? "?"): \(event.message ?? "resuming")\n")
            draw(event, force: true)
        case .storeFinished:
            if let result = event.result, result.status == .failed || result.status == .interrupted {
                clear()
                write(Self.describe(result) + "\n")
            }
            draw(event, force: event.result?.status == .failed)
        case .batchFinished:
            draw(event, force: true)
            clear()
        }
    }

    private func draw(_ event: BatchEvent, force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let fraction = event.total > 0 ? Double(event.finished) / Double(event.total) : 1
        let width = 20
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let doneHere = event.finished - finishedAtStart
        let rate = Double(doneHere) / elapsed
        let remaining = event.total - event.finished
        let eta = rate > 0 && remaining > 0 ? " · ETA \(clock(Double(remaining) / rate))" : ""
        let running = event.running.isEmpty ? "" : " · \(event.running.count) running: "
            + event.running.prefix(3).joined(separator: ", ") + (event.running.count > 3 ? ", …" : "")
        var text = "stores \(event.finished)/\(event.total) \(bar) \(String(format: "%.1f", rate))/s\(eta)\(running)"
        if let columns = Self.terminalWidth(), text.count > columns - 1 { text = String(text.prefix(columns - 2)) + "…" }
        write("\r\u{1B}[2K" + text)
        drawn = true
    }

    private func clear() {
        if drawn {
            write("\r\u{1B}[2K")
            drawn = false
        }
    }

    /// One store's outcome in a line (more lines for a multi-line error, indented).
    static func describe(_ result: BatchStoreResult) -> String {
        switch result.status {
        case .done:
            let versions = result.fromVersion.map { "\($0) → \(result.toVersion ?? "?"), " } ?? ""
            return "done    \(result.path) (\(versions)\(result.totalRows) rows, \(String(format: "%.2f", result.seconds)) s)"
        case .skipped:
            return "skipped \(result.path): up to date\(result.toVersion.map { " (\($0))" } ?? "")"
        case .failed:
            return "failed  \(result.path): " + (result.error ?? "unknown error").replacingOccurrences(of: "\n", with: "\n        ")
        case .interrupted:
            return "interrupted \(result.path): resumes on the next run"
        case .pending, .started:
            return "\(result.status.rawValue) \(result.path)"
        }
    }

    private static func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    private func timestamp() -> String {
        timestamps.string(from: Date())
    }
}
