import Foundation
import ArgumentParser
import ETL

/// How `run` shows progress on standard error.
enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    /// A bar on a terminal, lines otherwise.
    case auto
    /// One bar per stage, redrawn in place (rows done / total, rate, ETA).
    case bar
    /// One log line per finished stage.
    case lines
    /// Every progress event as one JSON object per line, for scripts and orchestrators.
    case json
    /// Nothing but errors and the summary.
    case none
}

/// Shows the engine's progress on standard error.
final class ProgressDisplay: @unchecked Sendable {
    private let style: ProgressStyle
    private var stageStarted: Date
    private var lastDraw = Date.distantPast
    private var drawn = false
    private let encoder = JSONEncoder()
    /// Where the text goes (standard error), and the time (tests give their own).
    private let output: (String) -> Void
    private let now: () -> Date

    init(style: ProgressStyle, output: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) },
         now: @escaping () -> Date = Date.init) {
        self.style = style == .auto ? (isatty(STDERR_FILENO) == 1 ? .bar : .lines) : style
        self.output = output
        self.now = now
        encoder.outputFormatting = [.sortedKeys]
        stageStarted = now()
    }

    func show(_ event: ProgressEvent) {
        let label = "step \(event.step)/\(event.stepCount) \(event.stage.rawValue)" + (event.mapping.map { " \($0)" } ?? "")
        switch (style, event.kind) {
        case (.json, _):
            if let data = try? encoder.encode(event) { write(String(decoding: data, as: UTF8.self) + "\n") }
        case (_, .resumed):
            // Said whatever the style: a user must know the run did not start from zero.
            // Clamped: Int(_:) of a huge Double traps, whatever the numbers say.
            let percent = event.total > 0 ? ", \(Int(min(100, max(0, Double(event.done) / Double(event.total) * 100)))) % done" : ""
            let redo = (event.redone ?? 0) > 0 ? "; \(event.redone!) source rows loaded after the last checkpoint are loaded again" : ""
            write("resuming \(label) (\(event.stepName))\(percent)\(redo)\n")
        case (_, .dropped):
            // Said whatever the style, like a resume: data the step does not carry over.
            let what = (event.removed ?? "").contains(".") ? "non-null values" : "rows"
            write("step \(event.step)/\(event.stepCount) (\(event.stepName)) drops \(event.removed ?? "?"): \(event.done) \(what)\n")
        case (.none, _):
            break
        case (_, .started):
            stageStarted = now()
            if style == .bar { draw(label, event, force: true) }
        case (_, .advanced):
            if style == .bar { draw(label, event, force: false) }
        case (_, .finished):
            let seconds = now().timeIntervalSince(stageStarted)
            if style == .bar {
                draw(label, event, force: true)
                write("\n")
                drawn = false
            } else {
                let what: String
                switch event.stage {
                case .create: what = "\(event.done) rows"
                // Inside SQLite a relate stage is a few statements, each setting many links.
                case .relate: what = event.links.map { "\($0) links set by \(event.done) statement\(event.done == 1 ? "" : "s")" } ?? "\(event.done) associations"
                case .validate: what = "\(event.done) checks passed"
                case .finalize: what = "store moved into place"
                }
                write("[\(timestamp())] \(label) (\(event.stepName)): \(what) in \(format(seconds)) s\n")
            }
        }
    }

    /// Ends a bar left half-drawn (on failure).
    func abandon() {
        if drawn { write("\n"); drawn = false }
    }

    private func draw(_ label: String, _ event: ProgressEvent, force: Bool) {
        let now = now()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(stageStarted), 0.001)
        let fraction = event.total > 0 ? min(1, max(0, Double(event.done) / Double(event.total))) : (event.kind == .finished ? 1 : 0)
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let rate = Double(event.done) / elapsed
        let eta = rate > 0 && event.total > event.done ? " ETA \(Self.clock(Double(event.total - event.done) / rate))" : ""
        // While running: rate and ETA; once finished: how long it took.
        let tail = event.kind == .finished ? "in \(format(elapsed)) s" : "\(Int(rate))/s\(eta)"
        let text = "\(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(bar) \(event.done)/\(event.total) \(tail)"
        write("\r\u{1B}[2K" + text)
        drawn = true
    }

    private func write(_ text: String) { output(text) }

    private func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    /// `m:ss`, for an ETA.
    static func clock(_ seconds: Double) -> String {
        let s = Int(min(max(seconds.rounded(.up), 0), 1e9))
        return String(format: "%d:%02d", s / 60, s % 60)
    }

    private func timestamp() -> String {
        ISO8601DateFormatter().string(from: now())
    }
}
