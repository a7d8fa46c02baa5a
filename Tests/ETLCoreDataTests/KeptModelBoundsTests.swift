import Foundation
import XCTest
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// A kept model (`Z_MODELCACHE`) nobody vouches for, of any size and shape (issue 45): read
/// in time linear in its entities and properties however deep its inheritance chains, or
/// refused by `ModelCache.Bounds`, naming the store and the count.
final class KeptModelBoundsTests: XCTestCase {
    /// `count` entities, each the sub-entity of the one before.
    static func chain(_ count: Int, attributes: Int = 0, prefix: String = "E") -> [KeptModelArchive.EntitySpec] {
        (0..<count).map { i in
            .init(name: "\(prefix)\(i)", parent: i == 0 ? nil : "\(prefix)\(i - 1)", attributes: (0..<attributes).map { "a\(i)_\($0)" })
        }
    }

    func read(_ entities: [KeptModelArchive.EntitySpec], bounds: ModelCache.Bounds = .init()) throws -> Model {
        try ModelCache.model(content: KeptModelArchive.content(entities), version: "v", store: "S.sqlite", bounds: bounds)
    }

    func refusal(_ entities: [KeptModelArchive.EntitySpec], bounds: ModelCache.Bounds = .init()) -> String? {
        thrownError(CoreDataStoreError.self) { try self.read(entities, bounds: bounds) }.map { "\($0)" }
    }

    func testAChainAsDeepAsTheBoundIsReadWithItsInheritedAttributesAndHashes() throws {
        let model = try read(Self.chain(101, attributes: 2))
        XCTAssertEqual(model.entities.count, 101)
        XCTAssertEqual(model.entity(named: "E100")?.parent, "E99")
        XCTAssertEqual(model.lineage(of: "E100").count, 101)
        XCTAssertEqual(model.attributes(of: "E100").count, 202)
        XCTAssertEqual(model.attributes(of: "E100").first?.name, "a0_0")
        XCTAssertEqual(model.descendants(of: "E98"), ["E98", "E99", "E100"])
        // Each entity's hash holds its parent's: the chain's, made once per entity, are the
        // ones made entity by entity on their own.
        let hashes = try VersionHashes(model: model)
        XCTAssertEqual(hashes.entities.count, 101)
        XCTAssertEqual(hashes.entities["E100"].map(Array.init), try VersionHashes.hash(of: "E100", in: model))
        XCTAssertNotEqual(hashes.entities["E100"], hashes.entities["E99"])
    }

    func testAChainDeeperThanTheBoundIsRefusedNamingTheEntityAndItsDepth() {
        XCTAssertEqual(refusal(Self.chain(102)),
                       "S.sqlite: Z_MODELCACHE is refused: entity E101 has 101 ancestors, more than the 100 etl reads")
    }

    /// The reproduction: 20,000 entities, each the sub-entity of the one before (cubic before).
    func testTwentyThousandChainedEntitiesAreRefusedNamingTheCount() {
        XCTAssertEqual(refusal(Self.chain(20_000)),
                       "S.sqlite: Z_MODELCACHE is refused: it holds 20000 entities, more than the 10000 etl reads")
    }

    func testPropertiesAreCountedWithTheInheritedOnes() throws {
        var bounds = ModelCache.Bounds()
        bounds.properties = 50
        // 10 entities of 1 attribute in one chain: 1 + 2 + … + 10 = 55 with the inherited ones.
        XCTAssertEqual(refusal(Self.chain(10, attributes: 1), bounds: bounds),
                       "S.sqlite: Z_MODELCACHE is refused: its entities have more than 50 properties (each entity's inherited ones counted with its own), the most etl reads")
        // The same 10 attributes on 10 entities side by side: 10.
        let flat = (0..<10).map { KeptModelArchive.EntitySpec(name: "F\($0)", attributes: ["a"]) }
        XCTAssertEqual(try read(flat, bounds: bounds).entities.count, 10)
    }

    /// Many chains side by side, up to the bounds: read whole.
    func testManyChainsUpToTheBoundsAreRead() throws {
        let entities = (0..<20).flatMap { Self.chain(100, prefix: "C\($0)_") }
        let model = try read(entities)
        XCTAssertEqual(model.entities.count, 2_000)
        XCTAssertEqual(model.root(of: "C7_99"), "C7_0")
        XCTAssertEqual(try VersionHashes(model: model).entities.count, 2_000)
    }

    func testACycleIsStillRefused() {
        let cycle = Model(version: "v", entities: [Entity(name: "A", parent: "B"), Entity(name: "B", parent: "A")])
        XCTAssertEqual((thrownError(ArchiveGraph.Malformed.self) { try ModelCache.check(cycle) })?.reason, "entity A is its own ancestor")
        XCTAssertNotNil(thrownError(VersionHashError.self) { try VersionHashes(model: cycle) })
    }
}
