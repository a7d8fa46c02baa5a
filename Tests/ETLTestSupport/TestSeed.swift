import Foundation

/// The seed of a randomized test: fixed by default so that a run reproduces, replaced by
/// `ETL_TEST_SEED` (decimal or 0x-hex) to replay a failure or explore other inputs.
/// Printed when the test starts, so that even a crash leaves it in the log; test cases
/// that use one add it to every failure message (see `replayHint`).
public struct TestSeed: CustomStringConvertible, Sendable {
    public let value: UInt64

    /// `name` says which test the seed belongs to in the printed line.
    public init(default fallback: UInt64, name: String) {
        let given = ProcessInfo.processInfo.environment["ETL_TEST_SEED"].flatMap(Self.parse)
        value = given ?? fallback
        print("\(name): seed \(self)\(given == nil ? "" : " (from ETL_TEST_SEED)")")
    }

    /// A seed fixed by `name` alone (its FNV-1a hash): the same every run, different per test.
    public init(fixedFor name: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        self.init(default: hash, name: name)
    }

    public var description: String { "0x" + String(value, radix: 16) }

    /// What a failure message should end with.
    public var replayHint: String { "seed \(self); replay with ETL_TEST_SEED=\(self)" }

    static func parse(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }
}
