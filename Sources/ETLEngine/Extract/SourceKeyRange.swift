/// Where a keyset scan goes on. Source keys are any Int64, −2⁶³ and 2⁶³−1 included, so a
/// scan reads keys from a bound *inclusive*: it starts at `Int64.min` (an exclusive bound
/// would have no value below it) and, after a chunk, continues at the key after its last
/// one — of which there is none after 2⁶³−1: the scan is over, not wrapped or trapped.
enum SourceKeyRange {
    /// The first key still to read once `last` was loaded (nil `last`: nothing loaded
    /// yet), or nil when nothing is left.
    static func first(after last: Int64?) -> Int64? {
        guard let last else { return .min }
        return last == .max ? nil : last + 1
    }
}
