import XCTest
import Foundation
import ETLModel
import ETLStore
import ETLTestSupport
@testable import ETLPipeline
@testable import ETLExpression

/// Seeded random inputs for the pipeline decoder + planner and the expression compiler +
/// evaluator. Every input must end in a value or a thrown error with a non-empty
/// description; a crash kills the test run, which is the failure this guards against.
/// Deterministic: a fixed seed (`ETL_TEST_SEED` replaces it, every failure names it) and
/// a fixed number of iterations, so a failure reproduces on any machine. `make
/// fuzz-pipelines` runs the coverage-guided libFuzzer version of the same (Fuzz/).
final class RandomizedInputTests: XCTestCase {
    /// SplitMix64: small, fast, good enough for test inputs.
    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let seed = TestSeed(default: 0x5EED_E71_2026, name: "RandomizedInputTests")

    /// Every failure names the seed that made its input.
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        super.recordFailure(withDescription: description + " (\(Self.seed.replayHint))", inFile: filePath, atLine: lineNumber, expected: expected)
    }

    // MARK: - Helpers

    static var repoRoot: URL {
        // Tests/ETLPipelineTests/RandomizedInputTests.swift → repository root
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The repository's pipeline files: (path, bytes).
    func pipelineFiles() throws -> [(String, [UInt8])] {
        let root = Self.repoRoot
        var paths: [String] = []
        for folder in ["pipelines", "Benchmarks/pipelines"] {
            let dir = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            paths += names.filter { $0.hasSuffix(".json") }.sorted().map { dir.appendingPathComponent($0).path }
        }
        paths.append(root.appendingPathComponent("Examples/PostSections/posts.json").path)
        let files = paths.compactMap { path in FileManager.default.contents(atPath: path).map { (path, Array($0)) } }
        XCTAssertGreaterThanOrEqual(files.count, 3, "expected the repository's pipeline files under \(root.path)")
        return files
    }

    /// Checks that a thrown error describes itself.
    func checkError(_ error: Error, input: @autoclosure () -> String, file: StaticString = #filePath,
                    line: UInt = #line) {
        let text = String(describing: error)
        XCTAssertFalse(text.isEmpty, "empty error description for input: \(input())", file: file, line: line)
        if let document = error as? DocumentError {
            XCTAssertGreaterThanOrEqual(document.line, 0, "\(document) for input: \(input())", file: file, line: line)
            XCTAssertGreaterThanOrEqual(document.column, 0, "\(document) for input: \(input())", file: file, line: line)
            XCTAssertFalse(document.message.isEmpty, "empty message for input: \(input())", file: file, line: line)
        }
        if let expression = error as? ExpressionError {
            XCTAssertFalse(expression.message.isEmpty, "empty message for input: \(input())", file: file, line: line)
            XCTAssertGreaterThanOrEqual(expression.column, 0, "\(expression) for input: \(input())", file: file, line: line)
        }
    }

    // MARK: - (a) Pipeline files

    static let jsonTokens: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "0", "-1", "1e999", "-0", "1.5",
        "9223372036854775808", "-9223372036854775809", "\"\\u0000\"", "\"\\ud800\"", "\"\\\"", "\"é\"",
        "\"steps\"", "\"format\"", "\"model\"", "\"mappings\"", "\"source\"", "\"destination\"",
        "\"$source.title\"", "\"destination('Books', $source)\"", "\"../\"", "\"/\"", "\"\"", "{}", "[]",
        "\"models\": \"x.xcdatamodeld\"", "\"forEach\": \"$source.users\"", " ", "\n", "\u{FEFF}", "\t",
        "\"layout\": \"coredata\"", "\"chunkSize\": 0", "\"workers\": 1000000", "\"maxRejects\": -1",
    ]

    func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        let rounds = 1 + rng.below(4)
        for _ in 0..<rounds {
            switch rng.below(7) {
            case 0 where !bytes.isEmpty: // flip bits of some bytes
                for _ in 0..<(1 + rng.below(4)) {
                    let i = rng.below(bytes.count)
                    bytes[i] ^= UInt8(truncatingIfNeeded: 1 << rng.below(8))
                }
            case 1: // insert a JSON token
                let token = Array(rng.pick(Self.jsonTokens).utf8)
                bytes.insert(contentsOf: token, at: rng.below(bytes.count + 1))
            case 2: // truncate
                bytes = Array(bytes.prefix(rng.below(bytes.count + 1)))
            case 3 where !bytes.isEmpty: // duplicate a section
                let start = rng.below(bytes.count)
                let length = min(bytes.count - start, 1 + rng.below(200))
                let section = bytes[start..<(start + length)]
                bytes.insert(contentsOf: section, at: rng.below(bytes.count + 1))
            case 4: // deep nesting at some place
                let depth = 1 + rng.below(400)
                let open = rng.chance(50) ? UInt8(ascii: "[") : UInt8(ascii: "{")
                let at = rng.below(bytes.count + 1)
                var nest = [UInt8](repeating: open, count: depth)
                if rng.chance(50) {
                    nest += [UInt8](repeating: open == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}"),
                                    count: depth)
                }
                bytes.insert(contentsOf: nest, at: at)
            case 5 where !bytes.isEmpty: // delete a range
                let start = rng.below(bytes.count)
                let length = min(bytes.count - start, 1 + rng.below(40))
                bytes.removeSubrange(start..<(start + length))
            default: // overwrite with a random byte (incl. non-UTF-8)
                if bytes.isEmpty { bytes.append(UInt8(truncatingIfNeeded: rng.next())) } else {
                    bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
        }
        return bytes
    }

    /// Replaces one expression string of a pipeline file with a random expression, so that the
    /// planner (which compiles them) sees more than the decoder's rejects.
    func replaceExpression(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        let text = String(decoding: input, as: UTF8.self)
        let ranges = text.ranges(of: "\"$source")
        guard !ranges.isEmpty else { return input }
        let start = rng.pick(ranges).lowerBound
        guard let end = text[text.index(after: start)...].firstIndex(of: "\"") else { return input }
        var expression = randomExpression(&rng, depth: 0)
        expression = expression.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
        return Array((text[..<start] + "\"" + expression + "\"" + text[text.index(after: end)...]).utf8)
    }

    func testMutatedPipelineFiles() throws {
        let files = try pipelineFiles()
        var rng = SplitMix64(seed: Self.seed.value)
        var decoded = 0, planned = 0, rejected = 0
        let iterations = 3000
        for iteration in 0..<iterations {
            let (path, original) = files[iteration % files.count]
            let input = rng.chance(20) ? replaceExpression(original, &rng) : mutate(original, &rng)
            do {
                let spec = try PipelineSpec.decode(input, file: path)
                decoded += 1
                do {
                    _ = try Planner(policies: [PolicySignature(name: "addSection", creates: ["Section"])]).plan(spec)
                    planned += 1
                } catch {
                    rejected += 1
                    checkError(error, input: String(decoding: input, as: UTF8.self))
                }
            } catch {
                rejected += 1
                checkError(error, input: String(decoding: input, as: UTF8.self))
            }
        }
        // The inputs reach every outcome, not only the decoder's first error.
        XCTAssertGreaterThan(planned, 0)
        XCTAssertGreaterThan(decoded - planned, 0, "some decode but do not plan")
        XCTAssertGreaterThan(rejected - (decoded - planned), 0, "some do not decode")
        print("RandomizedInputTests pipelines: decoded \(decoded), planned \(planned), rejected \(rejected)")
    }

    func testOriginalPipelineFilesStillDecode() throws {
        for (path, bytes) in try pipelineFiles() {
            XCTAssertNoThrow(try PipelineSpec.decode(bytes, file: path), path)
        }
    }

    // MARK: - (b) Expressions

    static let paths = [
        "$source", "$source.title", "$source.price", "$source.pages", "$source.published", "$source.cover",
        "$source.author", "$source.author.name", "$source.users", "$source.author.books", "$item", "$item.name",
        "$source.titel", "$source.author.nope", "$item.books", "$source.users.name",
    ]
    static let literals = [
        "0", "1", "-1", "42", "1.5", "-0.0", "1e308", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "'text'", "''", "'it''s'", "\"dq\"", "'é𝄞'", "true", "false", "null",
        "'2024-01-31'", "'2024-01-31T10:00:00Z'", "'-1e400'", "'  12abc'",
    ]
    static let unary = ["-", "!", "not "]
    static let binary = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "and", "or"]
    static let functions = [
        "coalesce", "if", "concat", "substring", "prefix", "upper", "lower", "trim", "replace", "length",
        "integer", "double", "string", "boolean", "date", "epoch", "iso8601", "year", "month", "day", "count",
        "destination", "destinations", "nosuch",
    ]

    func randomExpression(_ rng: inout SplitMix64, depth: Int) -> String {
        if depth > 5 || rng.chance(30) {
            return rng.chance(50) ? rng.pick(Self.paths) : rng.pick(Self.literals)
        }
        switch rng.below(5) {
        case 0: return rng.pick(Self.unary) + randomExpression(&rng, depth: depth + 1)
        case 1:
            return randomExpression(&rng, depth: depth + 1) + " " + rng.pick(Self.binary) + " "
                + randomExpression(&rng, depth: depth + 1)
        case 2: return "(" + randomExpression(&rng, depth: depth + 1) + ")"
        default:
            let name = rng.pick(Self.functions)
            var arguments: [String] = []
            if name.hasPrefix("destination") { arguments.append(rng.pick(["'Books'", "'Authors'", "'Users'", "'X'"])) }
            for _ in 0..<rng.below(4) { arguments.append(randomExpression(&rng, depth: depth + 1)) }
            return name + "(" + arguments.joined(separator: ", ") + ")"
        }
    }

    func randomBytesExpression(_ rng: inout SplitMix64) -> String {
        let alphabet = Array("$source.item()'\"!=<>&|+-*/%,0123456789.eE _abcxyz\u{0}\u{7F}é\n\\".unicodeScalars)
        var text = String.UnicodeScalarView()
        for _ in 0..<rng.below(40) {
            if rng.chance(10) {
                text.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rng.next())))
            } else {
                text.append(rng.pick(alphabet))
            }
        }
        return String(text)
    }

    /// A random stored value, read as the engine reads it: `Value(sql:as:)` with the slot's
    /// static type (so the value is of that type or null, as the evaluator may assume).
    func randomValue(_ rng: inout SplitMix64, as type: ExprType) -> Value {
        let sql: SQLValue
        switch rng.below(6) {
        case 0: sql = .null
        case 1: sql = .integer(rng.pick([0, 1, -1, Int64.max, Int64.min, Int64(bitPattern: rng.next()),
                                         Int64(rng.below(100)) - 50]))
        case 2: sql = .real(rng.pick([0, -0.0, 1.5, .infinity, -.infinity, .nan, 1e308, -1e-308, 1e15, -1e15,
                                      1_700_000_000, -62_135_596_800, Double(bitPattern: rng.next())]))
        case 3: sql = .text(rng.pick(["", "a", "é𝄞", "  12abc", "2024-01-31", "2024-01-31T10:00:00Z", "x\u{0}y",
                                      "9999-99-99", "-1e400", String(repeating: "z", count: 300)]))
        case 4: sql = .blob(rng.chance(50) ? [] : [0xFF, 0x00, 0xC3])
        default: sql = .integer(Int64(rng.below(10)))
        }
        return Value(sql: sql, as: type)
    }

    func testRandomExpressions() {
        var rng = SplitMix64(seed: Self.seed.value ^ 0xE59)
        var compiled = 0, rejected = 0, evaluated = 0, failedEvaluation = 0
        let iterations = 4000
        for iteration in 0..<iterations {
            let text = iteration % 4 == 3 ? randomBytesExpression(&rng) : randomExpression(&rng, depth: 0)
            let scope = ExpressionScope(sourceModel: ExpressionFixture.model,
                                        source: rng.pick(["Book", "Author", "User"]),
                                        item: rng.pick([nil, "User", "Book"]),
                                        mappings: ExpressionFixture.mappings,
                                        allowsDestinationLookups: rng.chance(50))
            let slots = SlotTable()
            let expression: CompiledExpression
            do {
                expression = try CompiledExpression.compile(text, scope: scope, slots: slots)
                compiled += 1
            } catch {
                rejected += 1
                checkError(error, input: text)
                continue
            }
            // The static type of each slot, as the engine knows it from the model.
            let types = slots.paths.map { path in
                (try? CompiledExpression.compile(path.description, scope: scope, slots: SlotTable()))?.type ?? .null
            }
            for _ in 0..<3 {
                let values = types.map { randomValue(&rng, as: $0) }
                let lookupCount = rng.below(3)
                let context = EvaluationContext(slots: values) { _, keys in
                    Array(keys.prefix(lookupCount))
                }
                do {
                    _ = try expression.evaluate(context)
                    evaluated += 1
                } catch {
                    failedEvaluation += 1
                    checkError(error, input: text)
                }
            }
        }
        XCTAssertGreaterThan(compiled, 0)
        XCTAssertGreaterThan(rejected, 0)
        XCTAssertGreaterThan(evaluated, 0)
        print("RandomizedInputTests expressions: compiled \(compiled), rejected \(rejected), evaluated \(evaluated), evaluation errors \(failedEvaluation)")
    }
}

extension RandomizedInputTests {
    /// Found by the fuzzer: deep nesting overflowed the parser's stack. Now a clear error.
    func testDeeplyNestedAndVeryLongExpressionsAreRefused() throws {
        let model = Model(version: "v", entities: [Entity(name: "A", attributes: [Attribute(name: "n", type: .integer64)])])
        let scope = ExpressionScope(sourceModel: model, source: "A", item: nil, mappings: [:], allowsDestinationLookups: false)
        for text in [String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000),
                     String(repeating: "-", count: 50_000) + "1",
                     String(repeating: "!", count: 1000) + "true"] {
            XCTAssertThrowsError(try CompiledExpression.compile(text, scope: scope, slots: SlotTable())) { error in
                XCTAssertTrue("\(error)".contains("nested deeper than 64 levels"), "\(error)")
            }
        }
        let long = (0..<2000).map { _ in "1" }.joined(separator: " + ")
        XCTAssertThrowsError(try CompiledExpression.compile(long, scope: scope, slots: SlotTable())) { error in
            XCTAssertTrue("\(error)".contains("more than 500 operators"), "\(error)")
        }
        // Ordinary nesting still works.
        let fine = try CompiledExpression.compile(String(repeating: "(", count: 30) + "$source.n + 1" + String(repeating: ")", count: 30),
                                                  scope: scope, slots: SlotTable())
        XCTAssertEqual(fine.type, .integer)
    }
}
