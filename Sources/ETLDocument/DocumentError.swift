/// An error in a JSON document a user wrote (a pipeline or a model file): names the file,
/// the line and column, the JSON path, what is wrong and, when it can, what to write instead.
///
///     pipelines/books.json:14:22: $.steps[0].mappings[1].source: unknown entity 'Bok' in model v1 (did you mean 'Book'?)
public struct DocumentError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int
    public var column: Int
    /// JSON path of the offending value, `$` for the whole document.
    public var path: String
    public var message: String

    public init(file: String, line: Int, column: Int, path: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    public var description: String {
        // Line 0: the problem is the file as a whole (missing, unreadable).
        line == 0 ? "\(file): \(message)" : "\(file):\(line):\(column): \(path): \(message)"
    }
}
