import Foundation
import ETLModel
import ETLCoreData

/// The inputs of a mapping model that are untrusted bytes: binary property lists and keyed
/// archives (valueexpressiondata, sourcemodeldata, a store's Z_PLIST), and the
/// `xcmapping.xml` itself. Each must end in a value or an error that describes itself.
extension FuzzSupport {
    /// `bytes` as a binary property list, a keyed archive of an expression (decoded and
    /// printed), an archived Xcode model (hashed) and a store's metadata (written again).
    public static func propertyList(_ bytes: [UInt8]) {
        do { _ = try BinaryPropertyList.read(bytes) } catch { check(error) }
        do {
            let expression = try ArchivedExpression.decode(archive: bytes)
            _ = expression.description
            _ = expression.sourceKeyPath
        } catch {
            check(error)
        }
        do {
            let model = try ArchivedDesignModel.model(archive: bytes, version: "fuzz")
            _ = try VersionHashes(model: model)
        } catch {
            check(error)
        }
        do {
            let metadata = try CoreDataMetadata.decode(plist: Data(bytes))
            _ = try metadata.encodePlist()
            _ = metadata.otherKeyNames
        } catch {
            check(error)
        }
        currentVersion(bytes)
    }

    /// A model bundle of one version, `Fuzz`, whose `.xccurrentversion` each input replaces.
    static let bundleFolder: String = {
        let folder = NSTemporaryDirectory() + "etl-fuzz-bundle-\(getpid())/Fuzz.xcdatamodeld"
        try? FileManager.default.createDirectory(atPath: folder + "/Fuzz.xcdatamodel", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/Fuzz.xcdatamodel/contents",
                                           contents: Data(#"<model><entity name="Note"/></model>"#.utf8))
        return folder
    }()

    /// `bytes` as a bundle's `.xccurrentversion` (XML or binary), read by loading the bundle.
    public static func currentVersion(_ bytes: [UInt8]) {
        guard FileManager.default.createFile(atPath: bundleFolder + "/.xccurrentversion", contents: Data(bytes)) else { return }
        do { _ = try ModelBundle.load(path: bundleFolder).currentVersion } catch { check(error) }
    }

    /// Where `mappingModel` writes each input: `xcmapping.xml` is read from a file.
    static let mappingFolder: String = {
        let folder = NSTemporaryDirectory() + "etl-fuzz-mapping-\(getpid())/Fuzz.xcmappingmodel"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// The models a fuzzed mapping model is imported between: Person and Car, as in the
    /// mapping model tests.
    static let mappingModels: (source: Model, destination: Model) = {
        func model(_ version: String, extra: [Attribute]) -> Model {
            var person = Entity(name: "Person")
            person.attributes = [Attribute(name: "firstName", type: .string, isOptional: true),
                                 Attribute(name: "lastName", type: .string, isOptional: true),
                                 Attribute(name: "age", type: .integer64, isOptional: true),
                                 Attribute(name: "photo", type: .binary, isOptional: true)] + extra
            person.relationships = [Relationship(name: "cars", destination: "Car", inverse: "owner", isToMany: true)]
            var car = Entity(name: "Car")
            car.attributes = [Attribute(name: "model", type: .string, isOptional: true)]
            car.relationships = [Relationship(name: "owner", destination: "Person", inverse: "cars")]
            return Model(version: version, entities: [car, person])
        }
        return (model("SampleModel2", extra: []), model("SampleModel3", extra: [Attribute(name: "updatedAt", type: .date, isOptional: true)]))
    }()

    /// `bytes` as a mapping model's `xcmapping.xml`, read and imported as a pipeline step.
    public static func mappingModel(_ bytes: [UInt8]) {
        let file = mappingFolder + "/xcmapping.xml"
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else { return }
        do {
            let mapping = try XCMappingModel.load(path: mappingFolder)
            _ = mapping.match(source: true, with: mappingModels.source)
            _ = try MappingModelImport.step(mapping, source: mappingModels.source, destination: mappingModels.destination)
        } catch {
            check(error)
        }
        currentVersion(bytes)
    }
}
