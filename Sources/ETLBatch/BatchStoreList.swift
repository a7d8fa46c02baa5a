import Foundation
import ETL

/// One store of a batch: its absolute path, and its path relative to the batch's base
/// folder (kept under `--out`, and hashed for `--shard`).
public struct BatchStore: Sendable, Hashable, Codable {
    public var path: String
    public var relativePath: String

    public init(path: String, relativePath: String) {
        self.path = path
        self.relativePath = relativePath
    }
}

/// The stores `--stores` names, sorted by relative path.
public struct BatchStoreList: Sendable {
    /// The folder relative paths start from: the glob's fixed prefix, the folder, or the
    /// deepest folder holding every store of a list file.
    public var base: String
    public var stores: [BatchStore]
    /// Files and folders below `base` whose names are not UTF-8, which no path of the batch
    /// can name: relative paths with those bytes as `\xNN`. Not migrated, and reported.
    public var unnamed: [String] = []
    /// Links to folders below `base` that were not walked, each with why (a loop, or a
    /// folder already walked by another path): reported, never skipped silently.
    public var notWalked: [String] = []

    /// The stores of one shard.
    public func shard(_ shard: BatchShard) -> [BatchStore] {
        shard.isWhole ? stores : stores.filter { shard.contains($0.relativePath) }
    }

    /// Finds the stores `argument` names:
    ///
    /// - `@FILE`: a list file, one store path per line (relative to the current folder;
    ///   blank lines and lines starting with `#` are ignored);
    /// - a folder: every file below it, at any depth;
    /// - a glob: `*`, `?` and `[…]` within a name, `**` for any number of folders
    ///   (`archive/**/*.sqlite`); relative paths start after the part without wildcards.
    ///
    /// Never a store: SQLite's companions (`-wal`, `-shm`, `-journal`), etl's work and
    /// backup files (`*.etl-*`, `*.bak`, reject files), hidden files and folders (unless the
    /// glob names them), and anything under `excluding` (the output and backup folders).
    public static func find(_ argument: String, currentDirectory: String = FileManager.default.currentDirectoryPath,
                            excluding: [String] = []) throws -> BatchStoreList {
        let excluded = excluding.map { absolute($0, in: currentDirectory) }
        if argument.hasPrefix("@") {
            return try list(file: absolute(String(argument.dropFirst()), in: currentDirectory), currentDirectory: currentDirectory)
        }
        guard !argument.isEmpty else { throw BatchUsageError("--stores is empty: give a glob, a folder or @LISTFILE") }
        let path = absolute(argument, in: currentDirectory)
        var isDirectory: ObjCBool = false
        let fm = FileManager.default
        if !Glob.hasWildcards(argument) {
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw BatchUsageError("--stores \(argument): no such file or folder")
            }
            if !isDirectory.boolValue {
                let base = (path as NSString).deletingLastPathComponent
                return BatchStoreList(base: base, stores: [BatchStore(path: path, relativePath: (path as NSString).lastPathComponent)])
            }
            let (stores, unnamed, notWalked) = walk(base: path, excluded: excluded) { relative in isCandidate(relative, explicitlyHidden: false) }
            return BatchStoreList(base: path, stores: stores, unnamed: unnamed, notWalked: notWalked)
        }
        // Split the glob: the leading folders without wildcards are the base.
        let absolutePattern = absolute(argument, in: currentDirectory, standardize: false)
        var components = absolutePattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var baseComponents: [String] = []
        while let first = components.first, !Glob.hasWildcards(first), components.count > 1 {
            baseComponents.append(first)
            components.removeFirst()
        }
        let base = URL(fileURLWithPath: "/" + baseComponents.joined(separator: "/")).standardizedFileURL.path
        guard fm.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw BatchUsageError("--stores \(argument): the folder \(base) does not exist")
        }
        let glob = Glob(components)
        let (stores, unnamed, notWalked) = walk(base: base, excluded: excluded) { relative in
            glob.matches(relative) && isCandidate(relative, explicitlyHidden: true)
        }
        return BatchStoreList(base: base, stores: stores, unnamed: unnamed, notWalked: notWalked)
    }

    private static func list(file: String, currentDirectory: String) throws -> BatchStoreList {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw BatchUsageError("--stores @\(file): cannot read the list file")
        }
        var seen = Set<String>()
        var paths: [String] = []
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let path = absolute(text, in: currentDirectory)
            if seen.insert(path).inserted { paths.append(path) }
        }
        guard !paths.isEmpty else { return BatchStoreList(base: currentDirectory, stores: []) }
        // The deepest folder that holds them all.
        var common = (paths[0] as NSString).deletingLastPathComponent.split(separator: "/").map(String.init)
        for path in paths.dropFirst() {
            let folders = (path as NSString).deletingLastPathComponent.split(separator: "/").map(String.init)
            var n = 0
            while n < common.count, n < folders.count, common[n] == folders[n] { n += 1 }
            common.removeSubrange(n...)
        }
        let base = "/" + common.joined(separator: "/")
        let prefix = base == "/" ? "/" : base + "/"
        let stores = paths.map { BatchStore(path: $0, relativePath: String($0.dropFirst(prefix.count))) }
            .sorted { $0.relativePath < $1.relativePath }
        return BatchStoreList(base: base, stores: stores)
    }

    /// Files below `base` whose relative path `accept`s. A link to a folder is followed
    /// (`archive/2019 → ../disk2/2019`: its stores keep the link's path), once: a folder
    /// reached again (a loop, or by two links) is not walked twice, and said so (`notWalked`).
    private static func walk(base: String, excluded: [String], accept: (String) -> Bool)
        -> (stores: [BatchStore], unnamed: [String], notWalked: [String]) {
        var found: [BatchStore] = []
        var unnamed: [String] = []
        var notWalked: [String] = []
        var folders = [""]
        var walked: [FolderID: String] = [:]
        if let id = FolderID(base) { walked[id] = "." }
        let fm = FileManager.default
        let excludedReal = excluded.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
        func isExcluded(_ path: String) -> Bool {
            excluded.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        while let relativeFolder = folders.popLast() {
            let folder = relativeFolder.isEmpty ? base : base + "/" + relativeFolder
            unnamed += nonUTF8Names(in: folder).map { relativeFolder.isEmpty ? $0 : relativeFolder + "/" + $0 }
            guard let names = try? fm.contentsOfDirectory(atPath: folder) else { continue }
            for name in names {
                let relative = relativeFolder.isEmpty ? name : relativeFolder + "/" + name
                let path = folder + "/" + name
                if isExcluded(path) { continue }
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR {
                    guard !name.hasPrefix("."), let id = FolderID(path) else { continue }
                    if let earlier = walked[id] {
                        notWalked.append("\(relative): walked already as \(earlier), through a link")
                        continue
                    }
                    walked[id] = relative
                    folders.append(relative)
                } else if type == S_IFLNK, isFolder(path) {
                    guard !name.hasPrefix(".") else { continue }
                    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                    if excludedReal.contains(where: { real == $0 || real.hasPrefix($0 + "/") }) { continue }
                    guard let id = FolderID(path) else { continue }
                    if let earlier = walked[id] {
                        notWalked.append("\(relative): a link to the folder \(real), walked already as \(earlier)")
                        continue
                    }
                    walked[id] = relative
                    folders.append(relative)
                } else if type == S_IFREG || (type == S_IFLNK && isRegularFile(path)) {
                    if accept(relative) { found.append(BatchStore(path: path, relativePath: relative)) }
                }
            }
        }
        return (found.sorted { $0.relativePath < $1.relativePath }, unnamed.sorted(), notWalked.sorted())
    }

    /// A folder by device and inode (through links): what makes a walk visit each once.
    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in `folder` that are not UTF-8, their bytes read with `readdir` (Foundation
    /// cannot give them), each such byte as `\xNN`.
    static func nonUTF8Names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard String(bytes: bytes, encoding: .utf8) == nil else { continue }
            names.append(bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined())
        }
        return names
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether a file may be a store, by its name.
    static func isCandidate(_ relative: String, explicitlyHidden: Bool) -> Bool {
        let name = (relative as NSString).lastPathComponent
        if name.hasPrefix(".") && !explicitlyHidden { return false }
        if name.hasPrefix(".etl-batch-manifest") { return false }
        for suffix in ["-wal", "-shm", "-journal", ".bak", ".rejects.jsonl.zst", ".sample-tmp"] where name.hasSuffix(suffix) {
            return false
        }
        return !name.contains(".etl-")
    }

    /// `path` made absolute against `folder` (when relative) and standardized.
    public static func absolute(_ path: String, in folder: String, standardize: Bool = true) -> String {
        let joined = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        return standardize ? URL(fileURLWithPath: joined).standardizedFileURL.path : joined
    }
}

/// Bad usage of `etl batch`: exit code 2, nothing was read.
public struct BatchUsageError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
