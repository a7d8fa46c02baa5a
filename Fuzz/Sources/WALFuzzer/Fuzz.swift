import FuzzSupport

/// libFuzzer entry: one `-wal` file → `WALCheck` (the frames SQLite's recovery would read).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzSupport.wal(bytes)
    return 0
}

/// On Linux SwiftPM links an executable target with `--defsym main=WALFuzzer_main`, which
/// hides libFuzzer's own `main`; this is that entry point and hands over to libFuzzer's driver.
@_cdecl("WALFuzzer_main")
public func walFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzWAL)
}
