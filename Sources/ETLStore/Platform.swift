// The one file that names the C library: Glibc on Linux, Darwin on macOS. Every other file
// gets the system calls (open, fstat, flock, pread, …) through this module's re-export, and
// calls the few whose Swift names clash with our own (`OwnFile.open`, `SignalTrap.signal`)
// through `Platform`.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// System calls whose names our own types reuse, reached without naming the C library.
public enum Platform {
    /// open(2).
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, mode)
        #else
        Darwin.open(path, flags, mode)
        #endif
    }

    /// The modification time of a file's status (stat(2)): `st_mtim` on Linux,
    /// `st_mtimespec` on macOS.
    public static func modificationTime(_ info: stat) -> timespec {
        #if canImport(Glibc)
        info.st_mtim
        #else
        info.st_mtimespec
        #endif
    }

    /// read(2).
    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// close(2); the result is ignored where nothing can be done about it.
    @discardableResult
    public static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }

    /// Sets signal `number` to be ignored (SIG_IGN).
    public static func ignoreSignal(_ number: Int32) {
        #if canImport(Glibc)
        _ = Glibc.signal(number, SIG_IGN)
        #else
        _ = Darwin.signal(number, SIG_IGN)
        #endif
    }
}
