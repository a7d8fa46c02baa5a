import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// A self-referencing join table Core Data renamed keeps its old column order (facts §1.4:
/// Wire's `"Z_25TRUSTEDBYCLIENTS" ( Z_25TRUSTEDBYCLIENTS INTEGER, Z_25TRUSTEDCLIENTS INTEGER, …)`),
/// and its index is built from the relationships' roles, not from that order.
final class SelfReferencingJoinIndexTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static let client = """
        <entity name="Client">
            <attribute name="label" optional="YES" attributeType="String"/>%@
            <relationship name="ignoredByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredClients" inverseEntity="Client"/>
            <relationship name="ignoredClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredByClients" inverseEntity="Client"/>
        </entity>
        """
    static let renamed = "CREATE TABLE Z_1IGNOREDBYCLIENTS ( Z_1IGNOREDBYCLIENTS INTEGER, Z_1IGNOREDCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS) )"
    static let roleIndex = "CREATE INDEX Z_1IGNOREDBYCLIENTS_Z_1IGNOREDBYCLIENTS_INDEX ON Z_1IGNOREDBYCLIENTS (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS)"

    /// A bundle c1 → c2 (Client gains `seen`) and a c1 store whose self-referencing table is
    /// named by ignoredByClients with the columns in the renamed table's order: the self
    /// client (1) ignores 2 and 3, and 3 ignores 2.
    func givenClients() throws -> (bundle: URL, source: String, c1: Model, c2: Model) {
        let bundle = folder.url.appendingPathComponent("Clients.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("c1", ModelBundleFiles.model(Self.client.replacingOccurrences(of: "%@", with: ""))),
            ("c2", ModelBundleFiles.model(Self.client.replacingOccurrences(of: "%@", with: #"<attribute name="seen" optional="YES" attributeType="Date"/>"#))),
        ], current: "c2")
        let versions = try ModelBundle.load(path: bundle.path)
        let source = folder.path("clients.sqlite")
        try writeEmptyCoreDataStore(of: try XCTUnwrap(versions.version(named: "c1")), to: source)
        let db = try Database(path: source, mode: .readWrite)
        defer { db.close() }
        try db.execute("DROP TABLE Z_1IGNOREDCLIENTS")
        try db.execute(Self.renamed)
        try db.execute("INSERT INTO ZCLIENT (Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES (1, 1, 1, 'self'), (2, 1, 1, 'b'), (3, 1, 1, 'c')")
        try db.execute("INSERT INTO Z_1IGNOREDBYCLIENTS (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS) VALUES (2, 1), (3, 1), (2, 3)")
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 3")
        return (bundle, source, try XCTUnwrap(versions.version(named: "c1")), try XCTUnwrap(versions.version(named: "c2")))
    }

    func schema(_ path: String, like pattern: String) throws -> [String] {
        try Database(path: path, mode: .readOnly).rows("SELECT sql FROM sqlite_schema WHERE name LIKE '\(pattern)' AND sql IS NOT NULL ORDER BY type DESC, name")
            .compactMap { if case .text(let sql) = $0[0] { return sql } else { return nil } }
    }

    /// Read from the store, and in the store an upgrade writes: the table as the source has
    /// it, its index leading with the column of the relationship that names the table.
    func testTheIndexFollowsTheRolesNotTheColumnOrder() throws {
        let (bundle, source, c1, _) = try givenClients()
        let read = try CoreDataLayout(model: c1, store: try Database(path: source, mode: .readOnly))
        XCTAssertTrue(read.schemaSQL().contains(Self.roleIndex), "\(read.schemaSQL().filter { $0.contains("IGNORED") })")

        let out = folder.path("clients-2.sqlite")
        _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: out)).run()
        XCTAssertEqual(try schema(out, like: "Z_1IGNORED%"), [Self.renamed, Self.roleIndex])
        XCTAssertEqual(try Database(path: out, mode: .readOnly).rows("SELECT Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS FROM Z_1IGNOREDBYCLIENTS ORDER BY 1, 2"),
                       [[.integer(2), .integer(1)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
    }

    /// With a template, the template's table wins over the source's: the links go where the
    /// app's own store has them.
    func testATemplatesTableNameWins() throws {
        let (bundle, source, _, c2) = try givenClients()
        let template = folder.path("template.sqlite")
        try writeEmptyCoreDataStore(of: c2, to: template)
        XCTAssertEqual(try schema(template, like: "Z_1IGNORED%").first,
                       "CREATE TABLE Z_1IGNOREDCLIENTS ( Z_1IGNOREDBYCLIENTS INTEGER, Z_1IGNOREDCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS) )")
        let out = folder.path("clients-2.sqlite")
        _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: out,
                                                                template: template)).run()
        XCTAssertEqual(try schema(out, like: "Z_1IGNORED%"), try schema(template, like: "Z_1IGNORED%"))
        XCTAssertEqual(try Database(path: out, mode: .readOnly).rows("SELECT Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS FROM Z_1IGNOREDCLIENTS ORDER BY 1, 2"),
                       [[.integer(2), .integer(1)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
    }
}
