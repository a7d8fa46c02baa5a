import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// Where a kill test stops `etl run --progress json`: at the first event of this step and
/// stage (and mapping, and kind of event, when given) at or past `fraction` of the stage,
/// after a random pause of up to `pause` microseconds.
struct KillTarget: CustomStringConvertible {
    var step: Int
    var stage: String
    var mapping: String? = nil
    var kind: String? = nil
    var fraction: Double = 0
    var pause: Int = 15_000

    func matches(_ event: [String: Any]) -> Bool {
        guard event["step"] as? Int == step, event["stage"] as? String == stage,
              mapping == nil || event["mapping"] as? String == mapping,
              kind == nil || event["kind"] as? String == kind else { return false }
        if fraction == 0 { return true }
        let done = event["done"] as? Int ?? 0, total = event["total"] as? Int ?? 0
        return total > 0 && Double(done) >= fraction * Double(total)
    }

    /// The pause before the kill, drawn from `random`: 0 to `pause` microseconds.
    func randomPause(_ random: inout SplitMix64) -> UInt32 {
        UInt32(random.below(pause + 1))
    }

    var description: String { "step \(step) \(stage) \(mapping ?? kind ?? "") at \(Int(fraction * 100)) %" }
}

extension ToolProcess {
    /// Runs `program` (`etl`, or a program built on it) with `arguments` (which ask for JSON
    /// progress) and SIGKILLs it `pause` microseconds after the first event `target`
    /// matches. Returns how the process ended.
    static func run(_ arguments: [String], program: String = "etl", killAt target: KillTarget, pause: UInt32) throws -> ToolRun {
        try run(arguments, program: program) { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  target.matches(event) else { return false }
            usleep(pause)
            return true
        }
    }
}

/// Whether `run`, a rerun after kills, finds the run into `destination` finished: it
/// finished it, or a kill landed after the run's very last act (removing the checkpoint),
/// so that this rerun refuses to replace the destination, like any rerun of a finished run.
func ranToTheEnd(_ run: ToolRun, destination: String) -> Bool {
    run.status == 0 || (run.status == 1 && run.stderr.contains("already exists")
                        && !FileManager.default.fileExists(atPath: destination + ".etl-checkpoint"))
}

/// Asserts that `last`, the rerun after the kills, finished the run into `destination`
/// (`ranToTheEnd`).
func assertFinishesAfterTheKills(_ last: ToolRun, destination: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(ranToTheEnd(last, destination: destination), last.stderr.suffix(2000).description, file: file, line: line)
}
