import Foundation

/// Wildcards for `--stores`: `*`, `?`, `[abc]`, `[a-z]`, `[!x]` within one path component,
/// and `**` as a whole component for zero or more folders.
struct Glob {
    let components: [String]

    init(_ components: [String]) { self.components = components }

    static func hasWildcards(_ text: String) -> Bool {
        text.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    func matches(_ relativePath: String) -> Bool {
        let names = relativePath.split(separator: "/").map(String.init)
        return Glob.match(components[...], names[...])
    }

    private static func match(_ pattern: ArraySlice<String>, _ names: ArraySlice<String>) -> Bool {
        guard let first = pattern.first else { return names.isEmpty }
        if first == "**" {
            // Zero or more folders (any depth when it ends the glob); never hidden ones.
            let after = pattern.dropFirst()
            if after.isEmpty { return !names.contains { $0.hasPrefix(".") } }
            var rest = names
            while true {
                if match(after, rest) { return true }
                guard let next = rest.first, rest.count > 1, !next.hasPrefix(".") else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let name = names.first, matchName(Array(first.unicodeScalars), Array(name.unicodeScalars)) else { return false }
        // A hidden name matches only a pattern that starts with a dot.
        if name.hasPrefix(".") && !first.hasPrefix(".") { return false }
        return match(pattern.dropFirst(), names.dropFirst())
    }

    /// One component: iterative wildcard matching with backtracking to the last `*`.
    static func matchName(_ pattern: [Unicode.Scalar], _ name: [Unicode.Scalar]) -> Bool {
        var p = 0, n = 0
        var star: Int? = nil, starName = 0
        while n < name.count {
            if p < pattern.count {
                let c = pattern[p]
                if c == "*" {
                    star = p; starName = n; p += 1; continue
                }
                if c == "?" { p += 1; n += 1; continue }
                if c == "[", let (matched, end) = matchClass(pattern, p, name[n]) {
                    if matched { p = end; n += 1; continue }
                } else if c == name[n] {
                    p += 1; n += 1; continue
                }
            }
            guard let s = star else { return false }
            p = s + 1; starName += 1; n = starName
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// `[…]` at `start`: whether `char` is in it, and the index after `]`; nil when the
    /// bracket is not closed (then it is a literal `[`).
    private static func matchClass(_ pattern: [Unicode.Scalar], _ start: Int, _ char: Unicode.Scalar) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < pattern.count && (pattern[i] == "!" || pattern[i] == "^") { negate = true; i += 1 }
        var matched = false
        var first = true
        while i < pattern.count {
            let c = pattern[i]
            if c == "]" && !first { return (matched != negate, i + 1) }
            first = false
            if i + 2 < pattern.count && pattern[i + 1] == "-" && pattern[i + 2] != "]" {
                if c.value <= char.value && char.value <= pattern[i + 2].value { matched = true }
                i += 3
            } else {
                if c == char { matched = true }
                i += 1
            }
        }
        return nil
    }
}
