import Foundation
import ETL
import ETLBatch

/// `etl batch --dry-run`: one line per store, then the counts.
enum BatchPlanTable {
    static func render(_ plans: [BatchStorePlan]) -> String {
        let width = plans.map(\.store.count).max() ?? 0
        var lines: [String] = []
        for plan in plans {
            let what: String
            switch plan.decision {
            case .migrate:
                what = "migrate  \(plan.fromVersion ?? "?") → \(plan.toVersion ?? "?") (\(plan.hops) hop\(plan.hops == 1 ? "" : "s"))"
                    + (plan.reason.map { ", \($0)" } ?? "")
            case .skip:
                what = "skip     up to date at \(plan.toVersion ?? "?")"
            case .refuse:
                what = "refuse   \(plan.reason ?? "")"
            case .keep:
                what = "keep     \(plan.reason ?? "")"
            case .stale:
                what = "stale    \(plan.reason ?? "") (--report-stale: left as it is)"
            }
            lines.append(plan.store.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + what)
        }
        let count = { (decision: BatchStorePlan.Decision) in plans.filter { $0.decision == decision }.count }
        lines.append("")
        lines.append("dry run, nothing written: \(count(.migrate)) to migrate, \(count(.skip)) up to date, \(count(.refuse)) refused, "
                     + (count(.keep) > 0 ? "\(count(.keep)) kept from earlier runs, " : "")
                     + (count(.stale) > 0 ? "\(count(.stale)) stale, " : "") + "of \(plans.count) stores")
        return lines.joined(separator: "\n")
    }

    static func json(_ plans: [BatchStorePlan]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(plans), as: UTF8.self)
    }
}
