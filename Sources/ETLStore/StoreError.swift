/// A failure of SQLite, with everything needed to find where it happened:
/// the file, the SQL, SQLite's result code and its message.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var code: Int32
    public var message: String
    public var sql: String?

    public init(path: String, code: Int32, message: String, sql: String? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "\(path): \(message) (SQLite code \(code))"
        if let sql { text += "\n  while running: \(sql.prefix(300))" }
        return text
    }
}

/// SQLite's primary result codes that callers branch on.
public enum SQLiteCode {
    public static let busy: Int32 = 5
    public static let noMemory: Int32 = 7
    public static let locked: Int32 = 6
    public static let readOnly: Int32 = 8
    public static let interrupt: Int32 = 9
    public static let ioError: Int32 = 10
    public static let corrupt: Int32 = 11
    public static let full: Int32 = 13
    public static let cantOpen: Int32 = 14
    public static let constraint: Int32 = 19
    public static let notADatabase: Int32 = 26
}
