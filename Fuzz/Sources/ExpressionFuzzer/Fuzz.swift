import FuzzSupport

/// libFuzzer entry: one expression → `CompiledExpression.compile` → `evaluate`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpression(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.expression(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=ExpressionFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
/// (Where SwiftPM does not rename `main`, libFuzzer's `main` runs and this is unused.)
@_cdecl("ExpressionFuzzer_main")
public func expressionFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzExpression)
}
