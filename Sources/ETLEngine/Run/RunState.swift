import Foundation
import ETLPipeline

/// The run's progress as the checkpoint records it: the identity, finished steps'
/// counters, and (through the current step's context) counters and key watermarks.
final class RunState {
    let plan: Plan
    let identity: RunIdentity
    let file: CheckpointFile
    let enabled: Bool
    let started: Date
    var finished: [MappingCounters]
    /// What the summary should tell (steps that could not run inside SQLite).
    var notes: [String] = []
    /// Why the current step runs row by row after its run inside SQLite gave up (kept in
    /// the checkpoint, so a resume does the same).
    var rowByRowBecause: String?
    /// The source as the run started reading it: checked after every chunk.
    var snapshot: SourceSnapshot?
    /// The step being run.
    var context: StepContext? {
        didSet {
            // Every committed chunk checks that the source did not change, and saves the checkpoint.
            context?.commitHandler = { [unowned self] position in
                try self.snapshot?.check()
                try self.save(position, durable: false)
            }
        }
    }

    init(plan: Plan, identity: RunIdentity, file: CheckpointFile, enabled: Bool, started: Date, finished: [MappingCounters]) {
        self.plan = plan
        self.identity = identity
        self.file = file
        self.enabled = enabled
        self.started = started
        self.finished = finished
    }

    /// The step being run fits in one chunk (`OneChunkStep`): its checkpoints inside it
    /// stay in memory until `flush()` or the next durable one.
    var withinOneChunk = false
    /// The last checkpoint kept in memory, as it was when its position was reached.
    private var pending: Checkpoint?

    func save(_ position: Checkpoint.Position, durable: Bool) throws {
        guard enabled else { return }
        let step = plan.steps[min(position.step, plan.steps.count - 1)]
        let checkpoint = Checkpoint(identity: identity, position: position, steps: plan.steps.map(\.name),
                                    mappings: step.mappings.map(\.name), finished: finished,
                                    counters: context?.counters ?? [], nextKeys: context?.nextKey ?? [:],
                                    rowByRowBecause: rowByRowBecause, started: started, written: Date())
        if withinOneChunk && !durable {
            pending = checkpoint
            return
        }
        pending = nil
        try file.write(checkpoint, durable: durable)
    }

    /// Writes the checkpoint kept in memory, if any: the run stops with its work kept, and
    /// the rerun resumes where this one got to, as if every checkpoint had been written.
    func flush() throws {
        guard let checkpoint = pending else { return }
        pending = nil
        try file.write(checkpoint, durable: false)
    }

    /// Step `next - 1` is done and its store complete: the next step starts from scratch.
    ///
    /// Durable (fsynced, and its folder) when the finished step was larger than a chunk:
    /// its checkpoints on disk point into its work database, which the next step rewrites,
    /// so none of them may come back after a crash of the machine. A step within one chunk
    /// wrote none (`OneChunkStep`): the checkpoint on disk before this one is the start of
    /// that step or of an earlier one, which starts over from files it makes anew. So this
    /// one is written and renamed into place as every checkpoint is (a killed process
    /// loses nothing of it), without the two fsyncs; a crash of the machine that loses it
    /// redoes that one chunk. The fsyncs that make the result durable before it is
    /// installed (the finalize checkpoint's, the store's, the folder's) stay.
    func stepFinished(next: Int) throws {
        rowByRowBecause = nil
        let finishedWithinOneChunk = withinOneChunk
        // Written, never only kept in memory; the next step's own is decided as it starts.
        withinOneChunk = false
        try save(.start(ofStep: next), durable: !finishedWithinOneChunk)
    }
}
