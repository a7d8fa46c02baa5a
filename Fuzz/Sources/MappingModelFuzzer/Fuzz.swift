import FuzzSupport

/// libFuzzer entry: one xcmapping.xml → `XCMappingModel.load` → `MappingModelImport.step`; the same bytes as a bundle's `.xccurrentversion`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMappingModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.mappingModel(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=MappingModelFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
@_cdecl("MappingModelFuzzer_main")
public func mappingModelFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzMappingModel)
}
