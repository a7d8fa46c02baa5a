/// Values a `@Sendable` hook (a run's `beforeValidation`, a progress handler) records,
/// read by the test after the run. The run calls its hooks one at a time.
public final class Recorded<Value>: @unchecked Sendable {
    public var list: [Value] = []
    public init() {}
}
