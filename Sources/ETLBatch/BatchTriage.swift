import Foundation
import ETL

/// What a run of a batch does with a store, given its latest manifest entry: keep the
/// recorded outcome, run the store (new, resumed, or again — saying why), or, with
/// `--report-stale`, report it stale. The one place that decides it, for the run and for
/// `--dry-run`, so the two agree on every store.
///
/// A recorded outcome is kept only while what made it is unchanged: its source (file,
/// size, time, pages; whole with `--verify-sources`), its inputs (`BatchInputs`), and, for a
/// result in `--out`, the result itself (there, and the same file as installed).
struct BatchTriage {
    enum Decision {
        /// The recorded outcome stands.
        case keep(BatchStoreResult)
        /// Migrated (again, with `reasons`; resumed from its checkpoint if it has one).
        case run(reasons: [String])
        /// `--report-stale`: made with other inputs; reported, left as it is.
        case stale(BatchStoreResult)
    }

    let options: BatchOptions
    let inputs: BatchInputs
    let digest: String
    /// The inputs the manifest recorded, by digest.
    let recorded: [String: BatchInputs]

    init(options: BatchOptions, inputs: BatchInputs, recorded: [String: BatchInputs]) {
        self.options = options
        self.inputs = inputs
        digest = inputs.digest
        self.recorded = recorded
    }

    func decide(_ store: BatchStore, prior: BatchStoreResult?) -> Decision {
        guard let prior else { return .run(reasons: []) }
        switch prior.status {
        case .done, .skipped:
            let inputReasons = inputChanges(prior)
            var reasons: [String] = []
            if let source = prior.source {
                if let now = BatchSourceIdentity.of(store.path, whole: options.verifySources) {
                    let changes = now.changes(since: source, verify: options.verifySources)
                    if !changes.isEmpty { reasons.append("the source changed since it was migrated (\(changes.joined(separator: ", ")))") }
                }
            } else if options.verifySources {
                reasons.append("the source's identity was not recorded, so it cannot be verified")
            }
            if prior.status == .done, case .directory = options.output, let output = prior.output,
               let problem = resultProblem(output: output, recorded: prior.result) {
                reasons.append(problem)
            }
            if reasons.isEmpty && inputReasons.isEmpty { return .keep(prior) }
            // Only the inputs changed: what --report-stale is for.
            if options.reportStale, reasons.isEmpty {
                var stale = prior
                stale.stale = inputReasons
                return .stale(stale)
            }
            return .run(reasons: reasons + inputReasons)
        case .failed:
            if options.retryFailed { return .run(reasons: ["--retry-failed"]) }
            let reasons = inputChanges(prior)
            if reasons.isEmpty { return .keep(prior) }
            if options.reportStale {
                var stale = prior
                stale.stale = reasons
                return .stale(stale)
            }
            return .run(reasons: reasons)
        case .started, .interrupted, .pending:
            return .run(reasons: [])
        }
    }

    /// How the inputs differ from those the outcome was made with (empty: the same).
    private func inputChanges(_ prior: BatchStoreResult) -> [String] {
        guard let made = prior.inputs else {
            return ["its outcome was recorded without the inputs that made it (an earlier etl)"]
        }
        guard made != digest else { return [] }
        guard let before = recorded[made] else {
            return ["the inputs it was made with (\(made)) are not in the manifest"]
        }
        let changes = inputs.differences(from: before, pipelineFile: options.pipeline)
        return ["its inputs changed: " + (changes.isEmpty ? "(\(made) → \(digest))" : changes.joined(separator: "; "))]
    }

    /// Why a recorded result can no longer be trusted, or nil.
    private func resultProblem(output: String, recorded: BatchSourceIdentity?) -> String? {
        guard let now = BatchSourceIdentity.of(output) else { return "its result \(output) is gone" }
        guard let recorded else { return "its result \(output) was not recorded when it was installed (an earlier etl)" }
        let changes = now.differences(from: recorded)
        return changes.isEmpty ? nil : "its result \(output) changed since it was installed (\(changes.joined(separator: ", ")))"
    }
}
