import Foundation
import ETLPipeline
import ETLExpression

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
    /// What the steps dropped, per entity and property (`RunSummary.drops`).
    var drops: [DroppedData] = []
    /// What tries of the current step inside SQLite learned (kept in the checkpoint, so a
    /// resume goes on the same way).
    var lessons = StepLessons()
    /// The source as the run started reading it: checked after every chunk.
    var snapshot: SourceSnapshot?
    /// The steps (0-based) whose validation record (`ValidationProof.record`) this process
    /// committed: the install needs no second connection to read the last one back.
    var validatedHere: Set<Int> = []
    /// The step being run.
    var context: StepContext? {
        didSet {
            // Every committed chunk is told here (`committed(at:)`).
            context?.checkpoints = self
        }
    }

    /// - Parameter resumed: the run continues a checkpoint on disk.
    init(plan: Plan, identity: RunIdentity, file: CheckpointFile, enabled: Bool, started: Date, finished: [MappingCounters],
         resumed: Bool = false) {
        self.plan = plan
        self.identity = identity
        self.file = file
        self.enabled = enabled
        self.started = started
        self.finished = finished
        onDisk = resumed
    }

    /// The step being run fits in one chunk (`OneChunkStep`): its checkpoints inside it
    /// stay in memory until `flush()` or the next durable one.
    var withinOneChunk = false
    /// The last checkpoint kept in memory, as it was when its position was reached.
    private var pending: Checkpoint?
    /// A checkpoint of this run is on disk: the one it resumed from, or one it wrote.
    private var onDisk: Bool

    /// The current step's files keep their journals in memory (`Engine.configure`): a
    /// failure inside it writes no checkpoint pointing into them.
    var journalsInMemory = false

    /// Whether a checkpoint of this run is on disk (one it resumed from, or one it wrote).
    var checkpointOnDisk: Bool { onDisk }

    /// Keeps the checkpoint at `position` in memory only, as those of a step within one
    /// chunk: written (`flush`) if the run stops with its work kept.
    func keep(_ position: Checkpoint.Position) {
        guard enabled else { return }
        pending = checkpoint(at: position)
    }

    func save(_ position: Checkpoint.Position, durable: Bool) throws {
        guard enabled else { return }
        if withinOneChunk && !durable {
            pending = checkpoint(at: position)
            return
        }
        try write(checkpoint(at: position), durable: durable)
    }

    private func checkpoint(at position: Checkpoint.Position) -> Checkpoint {
        let step = plan.steps[min(position.step, plan.steps.count - 1)]
        return Checkpoint(identity: identity, position: position, steps: plan.steps.map(\.name),
                          mappings: step.mappings.map(\.name), finished: finished,
                          counters: context?.counters ?? [], nextKeys: context?.nextKey ?? [:],
                          lessons: lessons,
                          started: started, written: Date())
    }

    private func write(_ checkpoint: Checkpoint, durable: Bool) throws {
        pending = nil
        try file.write(checkpoint, durable: durable)
        onDisk = true
    }

    /// Writes the checkpoint kept in memory, if any: the run stops with its work kept, and
    /// the rerun resumes where this one got to, as if every checkpoint had been written.
    func flush() throws {
        guard let checkpoint = pending else { return }
        try write(checkpoint, durable: false)
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
    ///
    /// And when no checkpoint of this run is on disk at all (it started afresh and every
    /// step so far was within one chunk, as every step of a small store is), this one is
    /// kept in memory too, like the step's own: there is no older checkpoint that a kill
    /// would leave pointing into the work database the next step rewrites, and a run killed
    /// without a checkpoint starts over from files it makes anew, redoing steps of at most
    /// a chunk each. An interruption or an error that keeps the work still writes it
    /// (`flush`). That spares a batch of small stores one checkpoint file per step.
    func stepFinished(next: Int) throws {
        lessons = StepLessons()
        let finishedWithinOneChunk = withinOneChunk
        // The next step's own is decided as it starts.
        withinOneChunk = false
        guard enabled else { return }
        if finishedWithinOneChunk && !onDisk {
            pending = checkpoint(at: .start(ofStep: next))
            return
        }
        try write(checkpoint(at: .start(ofStep: next)), durable: !finishedWithinOneChunk)
    }
}

extension RunState: CheckpointSink {
    /// Every committed chunk checks that the source did not change, and saves the checkpoint.
    func committed(at position: Checkpoint.Position) throws {
        try snapshot?.check()
        try save(position, durable: false)
    }
}
