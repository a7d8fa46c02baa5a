import FuzzSupport

/// libFuzzer entry: one keyed archive → the kept-model reader (`Z_MODELCACHE`), its version
/// hashes and its XML.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeptModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.keptModel(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=KeptModelFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
@_cdecl("KeptModelFuzzer_main")
public func keptModelFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzKeptModel)
}
