import Foundation

/// `matches(text, pattern)`: Core Data's `MATCHES`, an ICU regular expression that must
/// match the whole text (not a part of it), case and diacritics as written. The same code
/// runs row by row and, registered in SQLite as `etl_matches`, in a pushed-down statement,
/// so both give the same answer.
public enum RegularExpression {
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var pattern: String
        public var reason: String
        public var description: String { "'\(pattern)' is not a regular expression: \(reason)" }
    }

    /// Whether `pattern` matches the whole of `text`.
    public static func matches(_ text: String, pattern: String) throws -> Bool {
        let regex = try compiled(pattern)
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
    }

    /// Checks a pattern once, where it is written (a literal), instead of on every row.
    public static func check(_ pattern: String) throws {
        _ = try compiled(pattern)
    }

    private static let cache = Cache()

    /// Anchored at the start by the match option and at the end by `\z`, so that the
    /// engine backtracks to a match of the whole text where one exists (`a|ab` matches "ab").
    private static func compiled(_ pattern: String) throws -> NSRegularExpression {
        if let regex = cache.get(pattern) { return regex }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: "(?:" + pattern + ")\\z")
        } catch {
            throw Invalid(pattern: pattern, reason: "\(error.localizedDescription)")
        }
        cache.put(pattern, regex)
        return regex
    }

    /// The compiled patterns, shared by the worker threads; a filter has a few.
    private final class Cache: @unchecked Sendable {
        private let lock = NSLock()
        private var patterns: [String: NSRegularExpression] = [:]

        func get(_ pattern: String) -> NSRegularExpression? { lock.withLock { patterns[pattern] } }

        func put(_ pattern: String, _ regex: NSRegularExpression) {
            lock.withLock {
                if patterns.count >= 256 { patterns.removeAll() }
                patterns[pattern] = regex
            }
        }
    }
}
