import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETL
// Temporary folders, repository paths, store dumps, seeds: shared by every test target,
// and visible in every file of this one.
@_exported import ETLTestSupport

/// The repository's books pipeline (or `pipeline`) from `source` into `destination`, for a
/// test to set further options on and run; a nil chunk size or worker count keeps the pipeline's.
func booksMigration(source: String, destination: String, chunkSize: Int? = nil, workers: Int? = nil,
                    pipeline: String = repositoryPath("pipelines/books.json"), fuseSteps: Bool = true) -> Migration {
    var migration = Migration(pipeline: pipeline)
    migration.options.fuseSteps = fuseSteps
    migration.source = source
    migration.destination = destination
    migration.chunkSize = chunkSize
    migration.workers = workers
    return migration
}

/// Runs the repository's books pipeline from `source` into `destination`.
@discardableResult
func migrateBooks(source: String, destination: String, chunkSize: Int? = nil, workers: Int? = nil,
                  replace: ReplacePolicy = .refuse, pipeline: String = repositoryPath("pipelines/books.json"),
                  fuseSteps: Bool = true) throws -> RunSummary {
    var migration = booksMigration(source: source, destination: destination, chunkSize: chunkSize, workers: workers, pipeline: pipeline,
                                   fuseSteps: fuseSteps)
    migration.replace = replace
    return try migration.run()
}

/// A v1 books store of 2,000 books (seed 1) written to `original`, and a copy of it at
/// `damaged` with a leaf page deep in the file damaged, which opening does not notice but
/// SQLite's quick check does; returns the damaged copy's bytes.
func writeDamagedBooksStore(original: String, damaged: String) throws -> Data {
    try BooksSample.write(rows: 2_000, seed: 1, to: original)
    let pageSize = try Database(path: original, mode: .readOnly).scalarInt("PRAGMA page_size")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: original))
    let page = Int(pageSize) * (bytes.count / Int(pageSize) - 3)
    bytes[page + 1] ^= 0xff
    bytes[page + 2] ^= 0x5a
    try bytes.write(to: URL(fileURLWithPath: damaged))
    return bytes
}

/// Given a fresh folder holding a v1 books store of `rows` books (made from `seed`) named
/// `source`: the folder, the store's path, and the path `destination` beside it for the
/// migration's result. A test case keeps the three in `setUp`.
func givenBooksStore(rows: Int, seed: UInt64, source: String = "v1.sqlite",
                     destination: String = "v3.sqlite") throws -> (TemporaryFolder, source: String, destination: String) {
    let folder = try TemporaryFolder()
    let store = folder.path(source)
    try BooksSample.write(rows: rows, seed: seed, to: store)
    return (folder, store, folder.path(destination))
}

/// Asserts that `body` throws a `MigrationError` whose description contains every string.
func assertMigrationError(_ body: @autoclosure () throws -> Any, contains parts: [String],
                          file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected a migration error containing \(parts)", file: file, line: line)
    } catch let error as MigrationError {
        for part in parts {
            XCTAssertTrue(error.description.contains(part), "\(error.description)\n  does not contain: \(part)", file: file, line: line)
        }
    } catch {
        XCTFail("expected a MigrationError, got \(type(of: error)): \(error)", file: file, line: line)
    }
}

/// Given a v1 books store and its uninterrupted migration to v3 (`reference`): a migration
/// of the same store into `destination`, for a test to stop, break and resume.
struct BooksResumeFixture {
    let folder: TemporaryFolder
    let source: String
    let reference: String
    let destination: String
    var migration: Migration

    init(rows: Int, seed: UInt64) throws {
        (folder, source, destination) = try givenBooksStore(rows: rows, seed: seed)
        reference = folder.path("reference.sqlite")
        try migrateBooks(source: source, destination: reference)
        migration = booksMigration(source: source, destination: destination)
    }
}

/// Writes an empty store of `model` at `path` in Core Data's layout, as Core Data leaves a
/// new store: the schema, the metadata and the key table.
func writeEmptyCoreDataStore(of model: Model, to path: String) throws {
    let layout = CoreDataLayout(model: model)
    let store = try Database(path: path, mode: .create)
    defer { store.close() }
    for sql in layout.schemaSQL() { try store.execute(sql) }
    try layout.finish(store)
}

extension TemporaryFolder {
    /// Copies a folder of the Core Data corpus (`../shared/fixtures/coredata-corpus/<name>`:
    /// stores with their -wal/-shm, model bundles, mapping models) into `fixtures/` here.
    func corpus(_ name: String) throws -> URL {
        try FixtureSet.copy("coredata-corpus/\(name)", into: url.appendingPathComponent("fixtures"))
    }

    /// Writes a pipeline of the model bundle `bundle` from the Core Data store `source` into
    /// `destination` (Core Data's layout on both sides), naming the destination's `version`
    /// and `template` when given; `extra` is added after the destination (`, "steps": [ … ]`).
    func coreDataPipeline(bundle: URL, source: URL, destination: String, version: String? = nil,
                          template: String? = nil, extra: String = "") throws -> String {
        let versionKey = version.map { ", \"version\": \"\($0)\"" } ?? ""
        let templateKey = template.map { ", \"template\": \"\($0)\"" } ?? ""
        return try pipeline("upgrade-\(UUID().uuidString.prefix(6)).json", """
            { "format": 1, "models": "\(bundle.path)",
              "source": { "store": "\(source.path)", "layout": "coredata" },
              "destination": { "store": "\(destination)", "layout": "coredata"\(versionKey)\(templateKey) }\(extra) }
            """)
    }
}

/// What `EngineTuning.observe` heard during a run: which shortcuts the run took.
final class EngineEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [EngineEvent] = []

    /// The observer to put into `RunOptions.tuning.observe`.
    var observe: @Sendable (EngineEvent) -> Void { { [self] event in lock.withLock { events.append(event) } } }
    var all: [EngineEvent] { lock.withLock { events } }
    var keysCopiedAhead: Int { all.filter { $0 == .keysCopiedAhead }.count }
    var linksCopiedAhead: Int { all.filter { $0 == .linksCopiedAhead }.count }
    var rangesHelped: Int { all.reduce(0) { if case .rangesHelped(let n) = $1 { return $0 + n } else { return $0 } } }
    var joinTablesCopiedWhole: [String] { all.compactMap { if case .joinTableCopiedWhole(let t) = $0 { return t } else { return nil } } }
}
