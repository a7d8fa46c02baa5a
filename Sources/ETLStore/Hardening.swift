import CSQLite
import Foundation

/// How a connection to a file we did not write is locked down: SQLite's "defense against
/// the dark arts" (https://www.sqlite.org/security.html), applied to every source store.
///
/// The SQL a source connection runs is ours; what is hostile is the file: its schema (the
/// CREATE statements SQLite parses and runs, its views, triggers, CHECK and DEFAULT
/// expressions, generated columns), its b-tree pages and its values. So the limits below
/// bound what the *file* can make SQLite do, and stay far above anything the engine's own
/// queries need.
///
/// Not available: a per-connection heap cap. `sqlite3_soft_heap_limit64` and
/// `sqlite3_hard_heap_limit64` are process-wide, and would also cap the destination's
/// connections; memory is bounded instead by the value length limit and the page cache.
public struct Hardening: Sendable, Equatable {
    /// `SQLITE_LIMIT_LENGTH`: the largest string, blob or row SQLite will build, in bytes.
    /// 256 MiB: far above any real value, and above the JSON key list of a 1,000,000-row
    /// chunk (about 20 MB) that the extractor binds. A larger value fails with SQLITE_TOOBIG.
    public var maxLength: Int32 = 256 << 20
    /// `SQLITE_LIMIT_SQL_LENGTH`: the longest statement, ours or a CREATE statement of the
    /// file's schema. The engine's statements are a few KiB.
    public var maxSQLLength: Int32 = 1 << 20
    /// `SQLITE_LIMIT_COLUMN`: SQLite's default (2,000), kept; a wider table is refused.
    public var maxColumns: Int32 = 2_000
    /// `SQLITE_LIMIT_EXPR_DEPTH`: expression nesting (default 1,000). The engine's queries
    /// nest a few levels; a schema expression nested deeper than this is refused.
    public var maxExpressionDepth: Int32 = 250
    /// `SQLITE_LIMIT_COMPOUND_SELECT`: terms of a UNION (default 500). The engine uses none.
    public var maxCompoundSelect: Int32 = 50
    /// `SQLITE_LIMIT_VDBE_OP`: instructions of one compiled statement (default 250,000,000).
    /// A join of the widest tables compiles to a few thousand.
    public var maxVDBEOperations: Int32 = 1_000_000
    /// `SQLITE_LIMIT_FUNCTION_ARG`: SQLite's default (127), kept.
    public var maxFunctionArguments: Int32 = 127
    /// `SQLITE_LIMIT_ATTACHED`: a source connection reads one file and attaches nothing.
    public var maxAttached: Int32 = 0
    /// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH` (default 50,000): the engine's patterns are short.
    public var maxLikePatternLength: Int32 = 1_000
    /// `SQLITE_LIMIT_VARIABLE_NUMBER`: SQLite's default (32,766), kept: key lists are bound
    /// as one JSON parameter, never as thousands of `?`.
    public var maxVariables: Int32 = 32_766
    /// `SQLITE_LIMIT_TRIGGER_DEPTH` (default 1,000). A read-only connection fires no
    /// trigger; kept low in case one ever could.
    public var maxTriggerDepth: Int32 = 10

    /// The settings every source store gets.
    public static let source = Hardening()

    public init() {}

    var limits: [(Int32, Int32)] {
        [(SQLITE_LIMIT_LENGTH, maxLength), (SQLITE_LIMIT_SQL_LENGTH, maxSQLLength),
         (SQLITE_LIMIT_COLUMN, maxColumns), (SQLITE_LIMIT_EXPR_DEPTH, maxExpressionDepth),
         (SQLITE_LIMIT_COMPOUND_SELECT, maxCompoundSelect), (SQLITE_LIMIT_VDBE_OP, maxVDBEOperations),
         (SQLITE_LIMIT_FUNCTION_ARG, maxFunctionArguments), (SQLITE_LIMIT_ATTACHED, maxAttached),
         (SQLITE_LIMIT_LIKE_PATTERN_LENGTH, maxLikePatternLength), (SQLITE_LIMIT_VARIABLE_NUMBER, maxVariables),
         (SQLITE_LIMIT_TRIGGER_DEPTH, maxTriggerDepth)]
    }
}

/// The boolean `sqlite3_db_config` options this package sets.
public enum DatabaseFlag: Sendable, CaseIterable {
    /// `SQLITE_DBCONFIG_DEFENSIVE`: no SQL can deliberately corrupt the file
    /// (writable_schema, journal_mode=OFF, schema_version=N, sqlite_dbpage writes…).
    case defensive
    /// `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`: `load_extension()` and the C API.
    case loadExtension
    /// `SQLITE_DBCONFIG_ENABLE_VIEW`: views can be read.
    case views
    /// `SQLITE_DBCONFIG_ENABLE_TRIGGER`: triggers fire.
    case triggers
    /// `SQLITE_DBCONFIG_TRUSTED_SCHEMA`: functions the schema names run with full trust.
    case trustedSchema

    var op: Int32 {
        switch self {
        case .defensive: return SQLITE_DBCONFIG_DEFENSIVE
        case .loadExtension: return SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION
        case .views: return SQLITE_DBCONFIG_ENABLE_VIEW
        case .triggers: return SQLITE_DBCONFIG_ENABLE_TRIGGER
        case .trustedSchema: return SQLITE_DBCONFIG_TRUSTED_SCHEMA
        }
    }
}

/// `sqlite3_db_config(db, op, int, int*)`.
///
/// `sqlite3_db_config` is variadic in C, and Swift does not import variadic C functions
/// ("Variadic function is unavailable"); SQLite has no `va_list` twin, and the C shim
/// header is not ours to extend. So the function is looked up in the very library that
/// serves `sqlite3_open_v2` and called through a non-variadic prototype with the exact
/// argument types of the "int int*" options. On the Linux ABIs (x86-64 System V, AArch64
/// AAPCS64) integer and pointer arguments of a variadic call travel in the same registers
/// as those of a plain call, so this is the same call a C compiler makes. On Apple's arm64,
/// variadic arguments go on the stack, so there it is not attempted (`nil`). Every setting
/// is read back and checked, so a wrong call cannot pass unnoticed.
enum DBConfig {
    typealias Function = @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutablePointer<Int32>?) -> Int32

    struct Box: @unchecked Sendable { let function: Function? }

    static let box: Box = Box(function: lookUp())

    private static func lookUp() -> Function? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // Only the library that serves our other calls will do: the one whose
        // `sqlite3_libversion` is the function this module calls.
        let anchor: @convention(c) () -> UnsafePointer<CChar>? = sqlite3_libversion
        let address = unsafeBitCast(anchor, to: UnsafeRawPointer.self)
        let candidates = [dlopen(nil, RTLD_NOW), dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD),
                          dlopen("libsqlite3.so", RTLD_NOW | RTLD_NOLOAD)]
        for case let handle? in candidates {
            guard let version = dlsym(handle, "sqlite3_libversion"), UnsafeRawPointer(version) == address,
                  let symbol = dlsym(handle, "sqlite3_db_config") else { continue }
            return unsafeBitCast(symbol, to: Function.self)
        }
        return nil
        #else
        return nil
        #endif
    }

    /// Sets a flag (`value` 0 or 1; -1 only reads it) and returns its state afterwards,
    /// or nil when the call is not available.
    static func flag(_ db: OpaquePointer, _ op: Int32, _ value: Int32) -> Bool? {
        guard let function = box.function else { return nil }
        var state: Int32 = -1
        let rc = function(db, op, value, &state)
        guard rc == SQLITE_OK, state == 0 || state == 1 else { return nil }
        return state == 1
    }
}

extension Database {
    /// The state of a `sqlite3_db_config` flag on this connection, or nil when it cannot be
    /// read (see `DBConfig`).
    public func flag(_ flag: DatabaseFlag) -> Bool? {
        DBConfig.flag(handle, flag.op, -1)
    }

    /// The version of the SQLite library in use, "3.40.1".
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// Whether `sqlite3_db_config` can be called on this platform.
    public static var canConfigure: Bool { DBConfig.box.function != nil }

    /// Locks the connection down for reading a file nobody vouches for (see `Hardening`).
    /// Call it first, before anything reads the file: the schema is parsed under these
    /// settings. Throws a `StoreError` if a setting does not take.
    ///
    /// - defensive mode on; extension loading off (C API and SQL); views and triggers off
    ///   (the engine reads base tables only, so a view named like one fails instead of
    ///   running); `trusted_schema = OFF` (functions named in the schema run only if
    ///   innocuous); `cell_size_check = ON` (damaged b-tree cells are found before use);
    ///   `mmap_size = 0` (a truncated or changing file is an I/O error, not a SIGBUS);
    ///   `query_only = ON`; the limits of `hardening`.
    public func harden(_ hardening: Hardening = .source) throws {
        for (limit, value) in hardening.limits {
            sqlite3_limit(handle, limit, value)
            let now = sqlite3_limit(handle, limit, -1)
            guard now <= value else {
                throw StoreError(path: path, code: SQLITE_MISUSE, message: "cannot lower SQLite limit \(limit) to \(value) (it stays \(now))")
            }
        }
        sqlite3_enable_load_extension(handle, 0)
        if Database.canConfigure {
            for (flag, value) in [(DatabaseFlag.defensive, true), (.loadExtension, false), (.views, false),
                                  (.triggers, false), (.trustedSchema, false)] {
                guard DBConfig.flag(handle, flag.op, value ? 1 : 0) == value else {
                    throw StoreError(path: path, code: SQLITE_MISUSE, message: "cannot set \(flag) to \(value) on the connection")
                }
            }
        }
        // The pragmas cover what the flags do where `sqlite3_db_config` cannot be called,
        // and none of them reads the file.
        try execute("PRAGMA trusted_schema = OFF; PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0; PRAGMA query_only = ON")
    }

    /// SQLite's quick check of the whole file (b-tree structure, page and cell bounds,
    /// freelist, NOT NULL; not index contents): the problems found, at most `limit`, or
    /// an empty list when the file is sound. It reads every page once, so it costs about
    /// one full read of the store.
    public func quickCheck(limit: Int = 10) throws -> [String] {
        let lines = try rows("PRAGMA main.quick_check(\(max(1, limit)))").compactMap { row -> String? in
            if case .text(let line) = row.first { return line }
            return nil
        }
        return lines == ["ok"] ? [] : lines
    }
}
