/// What the planner must know of a registered policy: its name, and the destination
/// entities it creates rows of besides its mapping's own.
public struct PolicySignature: Sendable {
    public var name: String
    public var creates: [String]

    public init(name: String, creates: [String] = []) {
        self.name = name
        self.creates = creates
    }
}
