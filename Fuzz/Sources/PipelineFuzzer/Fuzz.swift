import FuzzSupport

/// libFuzzer entry: one pipeline file → `PipelineSpec.decode` → `Planner.plan`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.pipeline(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=PipelineFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
/// (Where SwiftPM does not rename `main`, libFuzzer's `main` runs and this is unused.)
@_cdecl("PipelineFuzzer_main")
public func pipelineFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzPipeline)
}
