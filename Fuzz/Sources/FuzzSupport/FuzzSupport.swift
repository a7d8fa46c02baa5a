import Foundation
import ETLModel
import ETLStore
import ETLPipeline

/// Shared by the two fuzz targets. An input must end in a value or a thrown error that
/// describes itself; anything else (a trap, a sanitizer report, an empty description)
/// is a finding.
public enum FuzzSupport {
    /// The repository root: Fuzz/Sources/FuzzSupport/FuzzSupport.swift → ../../../..
    public static let repoRoot: String = {
        if let root = ProcessInfo.processInfo.environment["ETL_REPO_ROOT"] { return root }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }()

    /// Folders a pipeline file is decoded as if it were in, so the model paths of the
    /// seed files resolve (pipelines/, Benchmarks/pipelines/, Examples/PostSections/).
    public static let pipelineFiles: [String] = [
        repoRoot + "/pipelines/fuzz.json",
        repoRoot + "/Benchmarks/pipelines/fuzz.json",
        repoRoot + "/Examples/PostSections/fuzz.json",
    ]

    public static var planner: Planner { Planner(policies: [PolicySignature(name: "addSection", creates: ["Section"])]) }

    public static func check(_ error: Error) {
        let text = String(describing: error)
        precondition(!text.isEmpty, "error with an empty description: \(type(of: error))")
        if let document = error as? DocumentError {
            precondition(document.line >= 0 && document.column >= 0, "bad position: \(document)")
            precondition(!document.message.isEmpty, "empty message: \(document)")
        }
        if let expression = error as? ExpressionError {
            precondition(!expression.message.isEmpty && expression.column >= 0, "bad error: \(expression)")
        }
    }

    /// Decodes `bytes` as a pipeline file in each of the folders and plans it.
    public static func pipeline(_ bytes: [UInt8]) {
        for file in pipelineFiles {
            do {
                let spec = try PipelineSpec.decode(bytes, file: file)
                _ = try planner.plan(spec)
            } catch {
                check(error)
            }
        }
    }

    static let storedValues: [SQLValue] = [
        .null, .integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min), .integer(42),
        .real(0), .real(-0.0), .real(1.5), .real(.infinity), .real(-.infinity), .real(.nan), .real(1e308),
        .real(1e15), .real(-62_135_596_800), .text(""), .text("a"), .text("é𝄞"), .text("  12abc"),
        .text("2024-01-31"), .text("2024-01-31T10:00:00Z"), .text("x\u{0}y"), .text("-1e400"),
        .blob([]), .blob([0xFF, 0x00, 0xC3]),
    ]

    /// The input is an expression over the expression tests' model (`ExpressionFixture`: a
    /// link to Tests/ETLPipelineTests/ExpressionFixture.swift); its last bytes (if any) pick
    /// the scope and the stored values. Compiles it and, when it compiles, evaluates it a few
    /// times with slot values of each slot's static type (as the engine reads them, `Value(sql:as:)`).
    public static func expression(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let sources = ["Book", "Author", "User"]
        let items: [String?] = [nil, "User", "Book"]
        let scope = ExpressionScope(sourceModel: ExpressionFixture.model, source: sources[Int(h % 3)], item: items[Int((h >> 8) % 3)],
                                    mappings: ExpressionFixture.mappings, allowsDestinationLookups: (h >> 16) & 1 == 1)
        let slots = SlotTable()
        let compiled: CompiledExpression
        do {
            compiled = try CompiledExpression.compile(text, scope: scope, slots: slots)
        } catch {
            check(error)
            return
        }
        let types = slots.paths.map { path in
            (try? CompiledExpression.compile(path.description, scope: scope, slots: SlotTable()))?.type ?? .null
        }
        var state = h
        for round in 0..<4 {
            let values = types.map { type -> Value in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Value(sql: storedValues[Int((state >> 33) % UInt64(storedValues.count))], as: type)
            }
            let context = EvaluationContext(slots: values) { _, keys in Array(keys.prefix(round % 3)) }
            do {
                _ = try compiled.evaluate(context)
            } catch {
                check(error)
            }
        }
    }
}

/// libFuzzer's driver (FuzzerDriver.cpp): `int LLVMFuzzerRunDriver(int *argc, char ***argv,
/// int (*callback)(const uint8_t *data, size_t size))`.
@_silgen_name("LLVMFuzzerRunDriver")
public func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
