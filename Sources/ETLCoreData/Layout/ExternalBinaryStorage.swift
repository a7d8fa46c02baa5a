import Foundation
import ETLStore

/// How Core Data stores a binary attribute that allows external storage: its column holds
/// `0x01` followed by the bytes (kept inline), or `0x02` followed by the ASCII UUID of a file
/// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/<UUID>` beside the store, which holds the bytes.
/// Copying the column alone copies the marker and loses the value: the engine reads the
/// real bytes through this, and writes values inline.
public enum ExternalBinaryStorage {
    /// `<folder>/.<StoreName>_SUPPORT/_EXTERNAL_DATA` of the store at `storePath`.
    public static func folder(ofStore storePath: String) -> String {
        supportFolder(ofStore: storePath) + "/_EXTERNAL_DATA"
    }

    /// `<folder>/.<StoreName>_SUPPORT` of the store at `storePath`.
    public static func supportFolder(ofStore storePath: String) -> String {
        let url = URL(fileURLWithPath: storePath)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT").path
    }

    /// Before a store built with its external files in `from` is renamed over
    /// `destination`: puts them into the destination's folder. With `backup`, the
    /// destination's own files go into the backup store's folder first. They are listed
    /// once, before any new file joins them, as links in the work folder `backup.gathered`
    /// (complete once renamed to that name): a rerun after a kill then never takes the new
    /// store's files for the old one's. Files are only added, never removed, so at every
    /// instant the store at `destination`, old or new, finds each file it names. Idempotent.
    public static func install(from: String, at destination: String, backup: (store: String, gathered: String)?) throws {
        let fm = FileManager.default
        if let backup {
            if !fm.fileExists(atPath: backup.gathered) {
                let gathering = backup.gathered + ".etl-partial"
                try? fm.removeItem(atPath: gathering)
                try fm.createDirectory(atPath: gathering, withIntermediateDirectories: true)
                let old = folder(ofStore: destination)
                for name in try files(in: old) {
                    try place(name, from: old, to: gathering)
                }
                guard rename(gathering, backup.gathered) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: backup.gathered])
                }
            }
            for name in try files(in: backup.gathered) {
                try place(name, from: backup.gathered, to: folder(ofStore: backup.store))
            }
        }
        for name in try files(in: from) {
            try place(name, from: from, to: folder(ofStore: destination))
        }
    }

    /// The names of the files in `folder` (none when there is no such folder; links and
    /// partial copies left out), sorted.
    static func files(in folder: String) throws -> [String] {
        try OwnFile.filesBeneath(base: confined(folder).base, confined(folder).components).map(\.name).filter { !$0.hasSuffix(".etl-partial") }
    }

    /// The files of a store's external folder and their sizes, for a report: none when it
    /// is missing or cannot be reached without a link.
    public static func externalFiles(in folder: String) -> [(name: String, size: Int64)] {
        (try? OwnFile.filesBeneath(base: confined(folder).base, confined(folder).components)) ?? []
    }

    /// A folder of external files as the folder the user chose and the components below it
    /// that are Core Data's or etl's, followed without links: `.<Store>_SUPPORT/_EXTERNAL_DATA`,
    /// or a run's own `…external` / work folder.
    static func confined(_ folder: String) -> (base: String, components: [String]) {
        let url = URL(fileURLWithPath: folder)
        let count = url.lastPathComponent == "_EXTERNAL_DATA" ? 2 : 1
        var base = url
        var components: [String] = []
        for _ in 0..<count {
            components.insert(base.lastPathComponent, at: 0)
            base = base.deletingLastPathComponent()
        }
        return (base.path, components)
    }

    /// The most bytes an external file may hold to be read as a value: the length limit of
    /// a source's values (`Hardening.source.maxLength`), which an inline value meets too.
    public static let maximumBytes = Int(Hardening.source.maxLength)

    public enum Read: Equatable {
        case bytes([UInt8])
        /// A well-formed `0x02` marker whose file is not there (the app lost it before): the
        /// bytes cannot be read, but the marker can be carried as it is, as Core Data does.
        case missing(String)
        /// Why the column's value is not a value of the attribute (no marker, no file name).
        case unreadable(String)
        /// A file larger than a value may hold: not read, but still there to be linked when
        /// the value is passed through unchanged. Why it cannot be read as a value.
        case tooLarge(String)
    }

    /// The value a stored column stands for. `folder`: `folder(ofStore:)` of its store.
    public static func read(_ stored: [UInt8], folder: String) -> Read {
        guard let marker = stored.first else { return .unreadable("an empty value without the 0x01/0x02 marker of external storage") }
        switch marker {
        case 0x01:
            return .bytes(Array(stored.dropFirst()))
        case 0x02:
            // The UUID's ASCII text; Core Data may end it with a NUL.
            guard let name = fileName(of: stored) else {
                return .unreadable("an external storage marker without a file name")
            }
            let file = folder + "/" + name
            let (base, components) = confined(folder)
            do {
                switch try OwnFile.readBeneath(base: base, components, name: name, limit: maximumBytes) {
                case .bytes(let bytes): return .bytes(bytes)
                case .missing: return .missing("its externally stored bytes are missing: no file \(file)")
                case .tooLarge(let size):
                    return .tooLarge("its externally stored file \(file) is \(size) bytes, more than the \(maximumBytes) a value may hold")
                }
            } catch {
                return .unreadable("its externally stored bytes cannot be read: \(error)")
            }
        default:
            return .unreadable("a value of \(stored.count) bytes without the 0x01/0x02 marker of external storage")
        }
    }

    /// The file name a `0x02` marker names, or nil for any other value.
    public static func fileName(of stored: [UInt8]) -> String? {
        guard stored.first == 0x02 else { return nil }
        let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        return name.isEmpty || name.contains("/") || name == "." || name == ".." ? nil : name
    }

    /// Puts file `name` of folder `from` into folder `to` (created if needed): a hard link,
    /// or a copy across file systems (streamed, written beside, then renamed: never half a
    /// file). A file already there is left alone, so a resumed run never copies a file
    /// twice. No link is followed at or inside either folder (`OwnFile.placeBeneath`).
    public static func place(_ name: String, from: String, to: String) throws {
        try OwnFile.placeBeneath(name, from: confined(from), to: confined(to))
    }

    /// The column value that keeps `bytes` inline.
    public static func inline(_ bytes: [UInt8]) -> SQLValue {
        .blob([0x01] + bytes)
    }
}
