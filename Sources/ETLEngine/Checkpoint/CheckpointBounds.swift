import ETLPipeline
import ETLExpression

extension Checkpoint {
    /// Checks every field a resume reads against the plan: a checkpoint is a file anyone
    /// could have written, so a step, mapping, target, key or counter out of range is a
    /// clear refusal here, never an index out of bounds or an overflow later.
    ///
    /// What it cannot prove — that the stores it continues were built and validated — the
    /// stores themselves prove (`ValidationProof`).
    func check(against plan: Plan, path: String) throws {
        func refuse(_ reason: String) -> MigrationError { .badCheckpoint(path: path, reason: reason) }
        let p = position
        guard plan.steps.indices.contains(p.step) else {
            throw refuse("it names step \(Self.ordinal(p.step)) of a pipeline with \(plan.steps.count) steps")
        }
        let step = plan.steps[p.step]
        guard steps.count == plan.steps.count, mappings.count == step.mappings.count else {
            throw refuse("it lists \(steps.count) steps and \(mappings.count) mappings; step \(step.name) of the pipeline has \(step.mappings.count) mappings of \(plan.steps.count) steps")
        }
        guard (0...Self.maximumCount).contains(p.done), (0...Self.maximumCount).contains(p.total) else {
            throw refuse("its progress (\(p.done) of \(p.total)) is not a count from 0 to \(Self.maximumCount)")
        }
        // Counters are added to as the run goes on, and summed in its summary.
        for counter in finished + counters {
            for (name, value) in [("read", counter.read), ("filtered", counter.filtered), ("associated", counter.associated),
                                  ("written", counter.written), ("rejected", counter.rejected), ("nullsOnPurpose", counter.nullsOnPurpose),
                                  ("dropped", counter.dropped), ("related", counter.related)] where !(0...Self.maximumCount).contains(value) {
                throw refuse("its counter \(name) of \(counter.mapping), \(value), is not a count from 0 to \(Self.maximumCount)")
            }
            guard counter.seconds.isFinite, counter.seconds >= 0, counter.seconds < 1e12 else {
                throw refuse("its time spent on \(counter.mapping), \(counter.seconds) s, is not a duration")
            }
        }
        let inStep = !p.isStartOfStep && p.stage != .finalize
        if inStep {
            guard counters.count == step.targets.count else {
                throw refuse("it has \(counters.count) counters for the \(step.targets.count) targets of step \(step.name)")
            }
            for (counter, target) in zip(counters, step.targets) where counter.mapping != target.name {
                throw refuse("its counter \(counter.mapping) is not target \(target.name) of step \(step.name)")
            }
        }
        switch p.stage {
        case .create, .relate:
            guard step.mappingIDs.contains(p.mapping) else {
                throw refuse("it names mapping \(Self.ordinal(p.mapping.index)) of step \(step.name), which has \(step.mappings.count)")
            }
            let targets = step.mappings[p.mapping].targets
            switch (p.stage, p.progress) {
            case (.relate, .linked(let target, _, _, _)):
                guard targets.contains(target) else {
                    throw refuse("its relate position names target \(target.index), not one of mapping \(step.mappings[p.mapping].name)")
                }
            case (.relate, .statementsDone(let count)):
                guard count >= 0, count <= step.mappings[p.mapping].relationships.count else {
                    throw refuse("its relate position counts \(count) statements; mapping \(step.mappings[p.mapping].name) has \(step.mappings[p.mapping].relationships.count)")
                }
            default:
                // The rest was told apart when the file was read (`Checkpoint.Position.init(from:)`).
                break
            }
        case .validate, .finalize:
            guard p.mapping == MappingID(0), p.progress == .nothingYet else { throw refuse("its \(p.stage.rawValue) position names a mapping or a key") }
            if p.stage == .finalize, p.step != plan.steps.count - 1 {
                throw refuse("it says step \(Self.ordinal(p.step)) of \(plan.steps.count) is being installed; only the last step's store is")
            }
        }
        if inStep {
            // Keys are handed out from these upwards: each must leave room to do so.
            let tables = Set(step.destinationModel.entities.map { step.destinationLayout.table(of: $0.name).name })
            let kept = Set(step.sourceKeyTargets.map { step.destinationLayout.table(of: step.targets[$0].entity).name })
            for (table, next) in nextKeys.sorted(by: { $0.key < $1.key }) {
                guard tables.contains(table) else { throw refuse("it has a next key for \(table), which is no table of step \(step.name)") }
                guard next >= 1, kept.contains(table) || next < Int64.max else {
                    throw refuse("its next key of \(table), \(next), leaves no key to hand out")
                }
            }
        }
    }

    /// The largest count a checkpoint may hold (2^48, far beyond any store's rows): what is
    /// added to it or summed with others stays far from overflowing.
    static let maximumCount = 1 << 48

    /// The 1-based number of a 0-based index read from the file, for a message: any Int,
    /// `Int.max` included, without an overflow trap.
    static func ordinal(_ index: Int) -> String {
        index < 0 ? String(index + 1) : String(UInt(index) + 1)
    }
}
