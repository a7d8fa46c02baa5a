/// What the stages of a step tell as they commit their work: the run (`RunState`) records the
/// position in the checkpoint. The stages know nothing of files, formats or durability.
protocol CheckpointSink: AnyObject {
    /// Everything up to `position` is committed in the step's store.
    func committed(at position: Checkpoint.Position) throws
}
