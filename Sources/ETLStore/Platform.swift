// The one file that names the C library: Glibc on Linux, Darwin on macOS. Every other file
// gets the system calls (open, fstat, flock, pread, …) through this module's re-export, and
// calls the few whose Swift names clash with our own (`OwnFile.open`, `SignalTrap.signal`)
// through `Platform`.
import CSQLite
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

    /// Starts writing the file at `path` out to disk without waiting (Linux's
    /// sync_file_range(2); elsewhere nothing): its fsync later waits for less. Best effort.
    public static func startWriteback(_ path: String) {
        #if canImport(Glibc)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        _ = etl_start_writeback(fd)
        Glibc.close(fd)
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

    /// The names in `folder` of the folders it holds (a link to a folder counts), not `.`
    /// and `..`; nil when it cannot be read. The entry types readdir(3) gives spare a stat
    /// of every file: a folder of a thousand stores is listed in one pass.
    public static func subfolders(of folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): names.append(name)
            case Int32(DT_LNK), Int32(DT_UNKNOWN):
                var info = stat()
                if stat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { names.append(name) }
            default: continue
            }
        }
        return names
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
