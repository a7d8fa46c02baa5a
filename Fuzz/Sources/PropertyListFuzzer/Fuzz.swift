import FuzzSupport

/// libFuzzer entry: one binary property list → the property-list, keyed-archive, archived-model, metadata and `.xccurrentversion` readers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPropertyList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.propertyList(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=PropertyListFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
@_cdecl("PropertyListFuzzer_main")
public func propertyListFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzPropertyList)
}
