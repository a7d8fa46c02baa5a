import ArgumentParser
import Foundation
import ETL
import ETLBatch

extension ExitStatus {
    /// `etl batch`: some stores failed; the others are done.
    static let someStoresFailed: Int32 = 3
}

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Migrate many stores with one pipeline, several at a time; a failing store does not stop the others; resumable.",
        discussion: """
            Every store goes through its own run of the pipeline, whose source and destination \
            are replaced per store. With a model bundle each store's version is detected, so an \
            archive of mixed versions works; stores already at the target version are skipped \
            ("up to date"). A store that fails (not SQLite, damaged, locked, unknown version, \
            validation, too many rejects…) is recorded with its reason and the others go on.

            --jobs stores run at a time (default: the number of cores), and each run uses ONE \
            worker queue unless --workers says otherwise, so memory stays bounded by --jobs \
            single-worker runs, whatever the stores' sizes (a run's memory does not grow with its store).

            Results go to --out DIR, each at its path relative to the glob's or folder's base, \
            with its work files beside it; or, with --in-place, each store is replaced by its \
            result after that result's validation passed, by an atomic rename, and its original \
            is kept as STORE.bak (or moved to --backup-dir DIR, at the same relative path).

            Each store's outcome is appended to a manifest as it finishes \
            (OUTDIR/.etl-batch-manifest.jsonl.zst, zstd JSON lines; with --in-place beside the \
            pipeline). Run the same command again to continue: stores recorded done, skipped or \
            failed are not touched again while what made them is unchanged — their source, \
            their result, and the batch's inputs (the pipeline, every model and mapping model \
            it reads, policies, etl's version): a new model version in the bundle migrates \
            every store again, saying why (--report-stale only reports them; --verify-sources \
            hashes whole sources). --retry-failed tries failed ones again; --restart forgets \
            everything; stores that were interrupted resume from their own checkpoints. One \
            batch runs into an --out at a time.

            --shard INDEX/COUNT takes a stable share of the stores (by a hash of their relative \
            paths), for several processes or machines; --shard auto reads a Kubernetes Indexed \
            Job (JOB_COMPLETION_INDEX, with --shard-count or ETL_SHARD_COUNT) or a Slurm array \
            (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT). Each shard keeps its own manifest. \
            In --report, --metrics-file and --manifest, {shard} stands for shard-I-of-N (or all).

            SIGINT or SIGTERM: no store is started any more; running ones stop after their chunk \
            being loaded and are recorded as interrupted, to resume on the next run.

            Examples:
              etl batch up.json --stores 'archive/**/*.sqlite' --out upgraded
              etl batch up.json --stores archive --in-place --backup-dir originals
              etl batch up.json --stores @list.txt --out upgraded --jobs 4
              etl batch up.json --stores archive --out upgraded --report r.json \\
                  --metrics-file /var/lib/node_exporter/textfile_collector/etl.prom
              parallel etl batch up.json --stores archive --out upgraded \\
                  --shard {}/4 --report r-{}.json ::: 0 1 2 3

            See docs/batch.md (Kubernetes Indexed Job, Slurm, the report and the metrics).

            Exit codes: 0 every store done or up to date; 3 some stores failed (the others are \
            done; see the summary or the report); 2 bad usage or a bad pipeline (no store touched); \
            1 the batch's own files cannot be written; 130 / 143 stopped by SIGINT / SIGTERM (run \
            the same command again to resume).
            """)

    @Argument(help: "The pipeline file every store goes through (its source and destination are replaced per store).")
    var pipeline: String

    @Option(help: ArgumentHelp("The stores: a glob ('archive/**/*.sqlite', quoted), a folder (every file below it), or @LISTFILE (one path per line).",
                               valueName: "glob|dir|@listfile"))
    var stores: String

    @Option(help: "Stores migrated at the same time (default: the number of cores).")
    var jobs: Int?

    @Option(help: ArgumentHelp("Write each result to DIR at the store's relative path (the stores are only read).", valueName: "dir"))
    var out: String?

    @Flag(help: "Replace each store by its result once it passed validation (atomic rename; the original is kept as STORE.bak).")
    var inPlace = false

    @Option(help: ArgumentHelp("With --in-place: move each original to DIR at its relative path instead of STORE.bak.", valueName: "dir"))
    var backupDir: String?

    @Option(help: ArgumentHelp("Migrate only this share of the stores: INDEX/COUNT (like 0/4), or auto (Kubernetes Indexed Job, Slurm array).",
                               valueName: "index/count|auto"))
    var shard: String?

    @Option(help: "With --shard auto in a Kubernetes Indexed Job: the number of shards (the Job's completions); else env ETL_SHARD_COUNT.")
    var shardCount: Int?

    @Option(help: ArgumentHelp("Write a JSON report: one entry per store (path, versions, rows per entity, seconds, status, error).", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Write Prometheus metrics for node_exporter's textfile collector (stores by status, rows, duration, last success).",
                               valueName: "file"))
    var metricsFile: String?

    @Option(help: ArgumentHelp("The manifest file (default: OUTDIR/.etl-batch-manifest[.shard-I-of-N].jsonl.zst, or beside the pipeline with --in-place).",
                               valueName: "file"))
    var manifest: String?

    @Option(help: ArgumentHelp("The watchdog: a store whose run takes longer than SECONDS is stopped and reported failed (default: no limit; its work is kept for a later run).", valueName: "seconds"))
    var storeTimeout: Double?

    @OptionGroup(title: "Each store's run") var flags: RunFlags

    @Flag(help: "Forget the manifest and every store's checkpoint, and start the batch over (existing results are replaced).")
    var restart = false

    @Flag(help: "Migrate the stores the manifest records as failed again (after fixing them or the pipeline).")
    var retryFailed = false

    @Flag(help: "Stores whose outcome was made with other inputs (the pipeline, a model, a mapping model, a policy, etl) are reported stale and left as they are, instead of migrated again.")
    var reportStale = false

    @Flag(help: "Hash each source whole to tell whether it changed since its outcome was recorded (for archives whose modification times cannot be trusted).")
    var verifySources = false

    @Option(help: "Progress on standard error: auto (a status line on a terminal, log lines otherwise), bar, lines, json (one event per line), none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Write nothing: say for each store whether the batch would migrate it (from which version), skip it (up to date) or refuse it (why).")
    var dryRun = false

    @Flag(help: "With --dry-run: print the decisions as a JSON array (store, decision, fromVersion, toVersion, hops, reason).")
    var json = false

    func validate() throws {
        if (out == nil) == !inPlace {
            throw ValidationError(inPlace ? "--out and --in-place exclude each other: choose one"
                                          : "say where the results go: --out DIR, or --in-place")
        }
        if backupDir != nil && !inPlace { throw ValidationError("--backup-dir goes with --in-place") }
        let problems = [jobs.flatMap { OptionLimits.problem("--jobs", $0, in: OptionLimits.jobs) },
                        storeTimeout.flatMap { OptionLimits.problem("--store-timeout", $0, in: OptionLimits.storeTimeout, unit: "seconds") },
                        shardCount.flatMap { OptionLimits.problem("--shard-count", $0, in: 1...BatchShard.maximumCount) }]
        if let problem = problems.compactMap({ $0 }).first { throw ValidationError(problem) }
        if shardCount != nil && shard != "auto" { throw ValidationError("--shard-count goes with --shard auto (with --shard INDEX/COUNT the count is in it)") }
        if json && !dryRun { throw ValidationError("--json goes with --dry-run (a batch's own results: --report FILE)") }
    }

    func run() throws {
        let folder = FileManager.default.currentDirectoryPath
        let shard = try resolveShard()
        let policies = ProgramPolicies.shared.registry
        // A bad pipeline is refused before any store is touched (exit code 2).
        try Batch.checkPipeline(pipeline, policies: policies)

        let excluded = [out, backupDir].compactMap { $0 }
        let list: BatchStoreList
        do {
            list = try BatchStoreList.find(stores, currentDirectory: folder, excluding: excluded)
        } catch let error as BatchUsageError {
            throw CLIFailure(message: error.message, code: ExitStatus.badInput)
        }
        guard !list.stores.isEmpty else {
            throw CLIFailure(message: "--stores \(stores) names no store (below \(list.base))"
                             + (list.unnamed.isEmpty ? "" : "; files whose names are not UTF-8 cannot be migrated: " + list.unnamed.joined(separator: ", ")),
                             code: ExitStatus.badInput)
        }
        let selected = list.shard(shard)
        func expand(_ path: String) -> String { shard.expand(path, in: folder) }
        let output: BatchOptions.Output = out.map { .directory(expand($0)) } ?? .inPlace(backupDirectory: backupDir.map(expand))

        let trap = SignalTrap()
        var options = BatchOptions(pipeline: pipeline, stores: selected, output: output,
                                   manifest: BatchManifest.path(given: manifest, output: output, pipeline: pipeline, shard: shard, currentDirectory: folder),
                                   jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        flags.apply(to: &options.run)
        options.storeTimeout = storeTimeout
        options.restart = restart
        options.retryFailed = retryFailed
        options.reportStale = reportStale
        options.verifySources = verifySources
        options.unnamed = list.unnamed
        options.cancellation = trap.cancellation
        options.shard = shard
        options.policies = policies
        if dryRun {
            // Decided as the run decides: the manifest read (never written), each store triaged, then planned.
            let plans: [BatchStorePlan]
            do { plans = try Batch(options: options).dryRun() } catch let error as BatchUsageError {
                throw CLIFailure(message: error.message, code: ExitStatus.badInput)
            }
            print(json ? try BatchPlanTable.json(plans) : BatchPlanTable.render(plans))
            return
        }

        let display = BatchProgressDisplay(style: progress, jobs: options.jobs)
        for folder in list.notWalked { display.note("not walked again: \(folder)") }
        if !shard.isWhole {
            display.note("shard \(shard): \(selected.count) of the \(list.stores.count) stores below \(list.base)")
        }
        let result: BatchReport
        do {
            result = try Batch(options: options).run { display.show($0) }
        } catch let error as BatchUsageError {
            display.end()
            throw CLIFailure(message: error.message, code: ExitStatus.badInput)
        } catch let error as BatchIOError {
            display.end()
            throw CLIFailure(message: error.message + ". The stores recorded so far are kept; run the same command again to continue")
        }
        display.end()
        print(BatchSummaryTable.render(result))
        do {
            if let report { try result.write(to: expand(report)) }
            if let metricsFile { try BatchMetrics.write(result, to: expand(metricsFile)) }
        } catch {
            throw CLIFailure(message: "\(error)")
        }
        if result.interrupted {
            let signal = trap.signal ?? SIGINT
            throw CLIFailure(message: "interrupted: \(result.count(.interrupted)) stores stopped in the middle, \(result.count(.pending)) not started. "
                                      + "Run the same command again to resume them.",
                             code: SignalTrap.exitStatus(for: signal))
        }
        if let unnamed = result.unnamed {
            throw CLIFailure(message: "\(unnamed.count) file\(unnamed.count == 1 ? "" : "s") below \(list.base) could not be migrated: "
                                      + "\(unnamed.count == 1 ? "its name is" : "their names are") not UTF-8 (\(unnamed.joined(separator: ", "))). "
                                      + "Rename \(unnamed.count == 1 ? "it" : "them") (convmv, or mv with the name's bytes) and run again"
                                      + (result.count(.failed) > 0 ? "; \(result.count(.failed)) stores failed too (see above)" : ""),
                             code: ExitStatus.someStoresFailed)
        }
        if result.count(.failed) > 0 {
            throw CLIFailure(message: "\(result.count(.failed)) of \(result.stores.count) stores failed (see above); the others are done. "
                                      + "Fix them (or the pipeline) and run again with --retry-failed",
                             code: ExitStatus.someStoresFailed)
        }
    }

    private func resolveShard() throws -> BatchShard {
        do {
            guard let shard else { return .all }
            if shard == "auto" {
                let (found, origin) = try BatchShard.fromEnvironment(ProcessInfo.processInfo.environment, shardCount: shardCount)
                printError("shard \(found) from the \(origin)")
                return found
            }
            return try BatchShard.parse(shard)
        } catch let error as BatchShardError {
            throw CLIFailure(message: error.message, code: ExitStatus.badInput)
        }
    }
}
