import Foundation
import ETL

/// Shows the engine's progress on standard error: on a terminal, one bar per stage
/// redrawn in place (rows done / total, rate, ETA); otherwise one log line per finished stage.
final class ProgressDisplay: @unchecked Sendable {
    private let interactive: Bool
    private let quiet: Bool
    private var stageStarted = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(interactive: Bool, quiet: Bool) {
        self.interactive = interactive
        self.quiet = quiet
    }

    func show(_ event: ProgressEvent) {
        guard !quiet else { return }
        let label = "step \(event.step)/\(event.stepCount) \(event.stage.rawValue)" + (event.mapping.map { " \($0)" } ?? "")
        switch event.kind {
        case .started:
            stageStarted = Date()
            if interactive { draw(label, event, force: true) }
        case .advanced:
            if interactive { draw(label, event, force: false) }
        case .finished:
            let seconds = Date().timeIntervalSince(stageStarted)
            if interactive {
                draw(label, event, force: true)
                write("\n")
                drawn = false
            } else {
                let what: String
                switch event.stage {
                case .create: what = "\(event.done) rows"
                case .relate: what = "\(event.done) associations"
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
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(stageStarted), 0.001)
        let fraction = event.total > 0 ? min(1, Double(event.done) / Double(event.total)) : (event.kind == .finished ? 1 : 0)
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let rate = Double(event.done) / elapsed
        let eta = rate > 0 && event.total > event.done ? " ETA \(clock(Double(event.total - event.done) / rate))" : ""
        // While running: rate and ETA; once finished: how long it took.
        let tail = event.kind == .finished ? "in \(format(elapsed)) s" : "\(Int(rate))/s\(eta)"
        let text = "\(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(bar) \(event.done)/\(event.total) \(tail)"
        write("\r\u{1B}[2K" + text)
        drawn = true
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }

    private func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return String(format: "%d:%02d", s / 60, s % 60)
    }

    private func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date())
    }
}
