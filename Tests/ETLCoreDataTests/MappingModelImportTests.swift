import Foundation
import XCTest
import ETLModel
import ETLExpression
import ETLCoreData

/// Xcode mapping models: the binary property list and keyed archive readers, the
/// NSExpression forms, and the corpus's three real mapping models translated into steps.
final class MappingModelImportTests: XCTestCase {
    /// The V2 → V3 mapping model and the SampleModel bundle, copied side by side.
    func sampleModel() throws -> (mapping: XCMappingModel, bundle: ModelBundle) {
        let folder = try SharedFixtures.copy("coredata-corpus/coredataplus-samplemodel", for: self)
        let mapping = try XCMappingModel.load(path: folder.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel").path)
        return (mapping, try ModelBundle.load(path: folder.appendingPathComponent("SampleModel.xcdatamodeld").path))
    }

    func step(_ mapping: XCMappingModel, _ bundle: ModelBundle) throws -> ImportedStep {
        try MappingModelImport.step(mapping, source: XCTUnwrap(bundle.version(named: mapping.sourceVersion)),
                                    destination: XCTUnwrap(bundle.version(named: mapping.destinationVersion)))
    }

    // MARK: The readers

    func testTheKeyedArchiveOfAValueExpressionDecodesToTheExpressionXcodeShows() throws {
        let (mapping, _) = try sampleModel()
        let car = try XCTUnwrap(mapping.entityMappings.first { $0.name == "CarToCar" })
        let previousOwners = try XCTUnwrap(car.relationships.first { $0.name == "previousOwners" }?.expression)
        XCTAssertEqual(previousOwners.description,
                       "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PersonToPerson\", $source.owner)")
        let person = try XCTUnwrap(mapping.entityMappings.first { $0.name == "PersonToPerson" })
        XCTAssertEqual(person.relationships.first { $0.name == "previousCars" }?.expression?.description,
                       "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)")
    }

    /// Each of the corpus's mapping models archives its two models; read back, they have the
    /// version hashes of the versions the recorded paths name, entity for entity — and differ
    /// from the other versions of the bundle.
    func testTheArchivedModelsHaveTheHashesOfTheVersionsTheyWereMadeBetween() throws {
        let sample = try SharedFixtures.copy("coredata-corpus/coredataplus-samplemodel", for: self)
        let store = try SharedFixtures.copy("coredata-corpus/ctdatastoremanager", for: self)
        var checked: [String] = []
        for (mappingPath, bundlePath) in [
            (sample.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel"), sample.appendingPathComponent("SampleModel.xcdatamodeld")),
            (store.appendingPathComponent("TestMigrationStore_1_2.xcmappingmodel"), store.appendingPathComponent("TestMigrationStore.xcdatamodeld")),
            (store.appendingPathComponent("TestMigrationStore_2_3.xcmappingmodel"), store.appendingPathComponent("TestMigrationStore.xcdatamodeld")),
        ] {
            let mapping = try XCMappingModel.load(path: mappingPath.path)
            let bundle = try ModelBundle.load(path: bundlePath.path)
            for (isSource, name) in [(true, mapping.sourceVersion), (false, mapping.destinationVersion)] {
                let archived = try ArchivedDesignModel.model(archive: try XCTUnwrap(isSource ? mapping.sourceModelArchive : mapping.destinationModelArchive), version: name)
                let version = try XCTUnwrap(bundle.version(named: name))
                XCTAssertEqual(try VersionHashes(model: archived), try VersionHashes(model: version), "\(mappingPath.lastPathComponent) \(name)")
                XCTAssertEqual(mapping.match(source: isSource, with: version), .sameHashes)
                for other in bundle.versions where other.version != name && (try? VersionHashes(model: other)) != (try? VersionHashes(model: version)) {
                    guard case .differs = mapping.match(source: isSource, with: other) else {
                        return XCTFail("\(mappingPath.lastPathComponent): \(other.version) matched as \(name)")
                    }
                }
                checked.append("\(mappingPath.lastPathComponent) \(isSource ? "source" : "destination") \(name)")
            }
        }
        XCTAssertEqual(checked.count, 6, "\(checked)")
    }

    func testADamagedPropertyListIsAnErrorNotACrash() throws {
        // An array that contains itself, then the same file cut short.
        let cycle = Array(Data(base64Encoded: "YnBsaXN0MDChAAgAAAAAAAABAQAAAAAAAAABAAAAAAAAAAAAAAAAAAAACg==")!)
        XCTAssertThrowsError(try BinaryPropertyList.read(cycle)) { XCTAssertTrue("\($0)".contains("contains itself"), "\($0)") }
        XCTAssertThrowsError(try BinaryPropertyList.read(Array(cycle.dropLast(3))))
        XCTAssertThrowsError(try KeyedArchive.root(of: Array("bplist00 but nothing else, not even a trailer".utf8)))
    }

    func testAnArchiveWhoseRootIsAnUnknownMethodCallDecodesAndPrintsIt() throws {
        let expression = try ArchivedExpression.decode(archive: Self.capitalizedName)
        XCTAssertEqual(expression.description, "FUNCTION($source.name, \"capitalizedString\")")
    }

    // MARK: The corpus's mapping models

    func testV2toV3BecomesTheStepTheCorpusReadmeDescribes() throws {
        let (mapping, bundle) = try sampleModel()
        XCTAssertEqual(mapping.sourceVersion, "SampleModel2")
        XCTAssertEqual(mapping.destinationVersion, "SampleModel3")
        let step = try step(mapping, bundle)
        // In mappingnumber order; the Maker mapping adds an entity and makes no rows.
        XCTAssertEqual(step.mappings.map(\.name), ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar"])
        XCTAssertEqual(step.mappings.map(\.policy), ["V2to3MakerPolicy", "V2to3MakerPolicy", nil, "V2to3MakerPolicy"])
        XCTAssertTrue(step.notes.contains { $0.contains("adds entity Maker") }, "\(step.notes)")
        let car = step.mappings[0]
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: car.attributes.map { ($0.property, $0.expression) }),
                       ["markedForDeletionAsOf": "$source.markedForDeletionAsOf", "numberPlate": "$source.numberPlate", "model": "$source.model"])
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: car.relationships.map { ($0.property, $0.expression) }),
                       ["owner": "destination('PersonToPerson', $source.owner)",
                        "previousOwners": "destinations('PersonToPerson', $source.owner)"])
        // Person.cars and Person.previousCars link rows of three car mappings: each of those
        // sets the inverse from the inverse source relationship, so they are left out.
        XCTAssertEqual(step.mappings[2].relationships, [])
        XCTAssertEqual(step.notes.filter { $0.contains("left out (setting one side sets both)") }.count, 2, "\(step.notes)")
    }

    func testAToManyOverSeveralMappingsWhoseInverseIsNotSetIsTheUnionOfTheirRows() throws {
        let (mapping, bundle) = try sampleModel()
        // CarToCar no longer sets previousOwners: Person.previousCars is then the only side
        // linking Car rows, which are rows of three mappings: it links the rows of each (its
        // expression: destinationInstancesForSourceRelationshipNamed:"cars" of $source.cars).
        let xml = try String(contentsOfFile: mapping.file, encoding: .utf8)
        try xml.replacingOccurrences(of: "idrefs=\"z131 z125 z123\"", with: "idrefs=\"z131 z125\"")
            .write(toFile: mapping.file, atomically: true, encoding: .utf8)
        let step = try step(XCMappingModel.load(path: mapping.path), bundle)
        let person = try XCTUnwrap(step.mappings.first { $0.name == "PersonToPerson" })
        XCTAssertEqual(person.relationships.first { $0.property == "previousCars" }?.expression,
                       "union(" + ["CarToCar", "LuxuryCarToLuxuryCar", "SportCarToSportCar"].map { "destinations('\($0)', $source.cars)" }.joined(separator: ", ") + ")")
        XCTAssertTrue(person.relationships.contains { $0.property == "cars" } == false, "cars is still set from each car's owner")
    }

    func testARelationshipExpressionThatIsNoMappingLookupIsRefused() throws {
        let (mapping, bundle) = try sampleModel()
        let xml = try String(contentsOfFile: mapping.file, encoding: .utf8)
        // Person.cars written as the bare source relationship, not through a mapping.
        try xml.replacingOccurrences(of: "<attribute name=\"name\" type=\"string\">cars</attribute>\n        <relationship name=\"entitymapping\" type=\"1/1\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"z111\">",
                                     with: "<attribute name=\"valueexpressionstring\" type=\"string\">$source.cars</attribute><attribute name=\"name\" type=\"string\">cars</attribute>\n        <relationship name=\"entitymapping\" type=\"1/1\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"z111\">")
            .write(toFile: mapping.file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try step(XCMappingModel.load(path: mapping.path), bundle)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity mapping PersonToPerson, relationship cars: value expression $source.cars has no pipeline equivalent"), text)
            XCTAssertTrue(text.contains("\"destinations('Mapping', $source.cars)\""), text)
        }
    }

    func testALookupThroughAMappingTheFileDoesNotHaveIsRefused() throws {
        let (mapping, bundle) = try sampleModel()
        let xml = try String(contentsOfFile: mapping.file, encoding: .utf8)
        // SportCar's owner, written through a mapping name that does not exist.
        let owner = "<attribute name=\"name\" type=\"string\">owner</attribute>\n        <relationship name=\"entitymapping\" type=\"1/1\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"z103\">"
        XCTAssertTrue(xml.contains(owner))
        let lookup = "FUNCTION($manager, &quot;destinationInstancesForEntityMappingNamed:sourceInstances:&quot;, &quot;PeopleToPeople&quot;, $source.owner)"
        try xml.replacingOccurrences(of: owner, with: "<attribute name=\"valueexpressionstring\" type=\"string\">\(lookup)</attribute>" + owner)
            .write(toFile: mapping.file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try step(XCMappingModel.load(path: mapping.path), bundle)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity mapping SportCarToSportCar, relationship owner: value expression "
                                        + "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PeopleToPeople\", $source.owner) "
                                        + "names entity mapping PeopleToPeople, which is not one of the file's mappings that make rows"), text)
            XCTAssertTrue(text.contains("\"destination('Mapping', $source.owner)\""), text)
        }
    }

    func testTheTestMigrationStoreMappingsCarryTheSameNamedAttributes() throws {
        let folder = try SharedFixtures.copy("coredata-corpus/ctdatastoremanager", for: self)
        let bundle = try ModelBundle.load(path: folder.appendingPathComponent("TestMigrationStore.xcdatamodeld").path)
        let first = try step(XCMappingModel.load(path: folder.appendingPathComponent("TestMigrationStore_1_2.xcmappingmodel").path), bundle)
        XCTAssertEqual(first.from, "TestMigrationStore")
        XCTAssertEqual(first.to, "TestMigrationStore 2")
        // `name` is new in version 2: auto-generated from a source that has none, it stays empty.
        XCTAssertEqual(first.mappings.map { $0.attributes.map { [$0.property, $0.expression] } }, [[["date", "$source.date"]]])
        let second = try step(XCMappingModel.load(path: folder.appendingPathComponent("TestMigrationStore_2_3.xcmappingmodel").path), bundle)
        XCTAssertEqual(second.mappings.map { $0.attributes.map(\.property) }, [["date", "name"]])
    }

    // MARK: Expressions and filters, in mapping models written for the test

    /// A mapping model of the corpus's SampleModel2 → SampleModel3 with one Person mapping
    /// whose property mappings and source filter are given.
    func personMapping(filter: String? = nil, sourceExpression: [UInt8]? = nil, attributes: [String: String] = [:],
                       archived: [String: [UInt8]] = [:], entityMappingXML: String = "") throws -> URL {
        let folder = try SharedFixtures.temporaryFolder(for: self).appendingPathComponent("Test.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var objects = ""
        var ids: [String] = []
        for (index, name) in (attributes.keys.sorted() + archived.keys.sorted()).enumerated() {
            let id = "z\(10 + index)"
            ids.append(id)
            let value = attributes[name].map { "<attribute name=\"valueexpressionstring\" type=\"string\">\($0.replacingOccurrences(of: "\"", with: "&quot;"))</attribute>" }
                ?? "<attribute name=\"valueexpressiondata\" type=\"binary\">\(Data(archived[name]!).base64EncodedString())</attribute>"
            objects += "<object type=\"XDDEVATTRIBUTEMAPPING\" id=\"\(id)\"><attribute name=\"name\" type=\"string\">\(name)</attribute>\(value)</object>\n"
        }
        let sourceAttribute = sourceExpression.map { "<attribute name=\"sourceexpressiondata\" type=\"binary\">\(Data($0).base64EncodedString())</attribute>" } ?? ""
        let filterAttribute = filter.map { "<attribute name=\"sourcefilterpredicatestring\" type=\"string\">\($0.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\"", with: "&quot;"))</attribute>" } ?? ""
        let xml = """
            <?xml version="1.0" standalone="no"?>
            <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
              <attribute name="sourcemodelpath" type="string">Tests/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel</attribute>
              <attribute name="destinationmodelpath" type="string">Tests/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel</attribute>
              <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship>
            </object>
            <object type="XDDEVENTITYMAPPING" id="z2">
              <attribute name="sourcename" type="string">Person</attribute>
              <attribute name="destinationname" type="string">Person</attribute>
              <attribute name="mappingtypename" type="string">Undefined</attribute>
              <attribute name="mappingnumber" type="int16">1</attribute>
              \(filterAttribute)\(sourceAttribute)\(entityMappingXML)
              <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="\(ids.joined(separator: " "))"></relationship>
            </object>
            \(objects)
            </database>
            """
        try xml.write(to: folder.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        return folder
    }

    func importPerson(_ folder: URL) throws -> ImportedMapping {
        let (_, bundle) = try sampleModel()
        return try step(XCMappingModel.load(path: folder.path), bundle).mappings[0]
    }

    /// Every part of an imported mapping keeps where the file says it (the planner's errors
    /// about it name that place): the entity mapping's object for the mapping and its source
    /// filter, each attribute mapping's object for its expression.
    func testEachImportedPartKeepsItsPlaceInTheFile() throws {
        let folder = try personMapping(filter: "firstName != nil", attributes: ["firstName": "$source.firstName", "lastName": "$source.lastName"])
        let person = try importPerson(folder)
        let file = folder.appendingPathComponent("xcmapping.xml").path
        let lines = try String(contentsOfFile: file, encoding: .utf8).components(separatedBy: "\n")
        func line(of text: String) throws -> Int { try XCTUnwrap(lines.firstIndex { $0.contains(text) }, text) + 1 }
        XCTAssertEqual(person.place, MappingModelPlace(file: file, line: try line(of: #"type="XDDEVENTITYMAPPING" id="z2""#), path: "entity mapping PersonToPerson"))
        XCTAssertEqual(person.filterPlace, MappingModelPlace(file: file, line: person.place.line, path: "entity mapping PersonToPerson, source filter"))
        XCTAssertEqual(person.attributes.map(\.place), try ["firstName", "lastName"].map {
            MappingModelPlace(file: file, line: try line(of: ">\($0)</attribute>"), path: "entity mapping PersonToPerson, attribute \($0)")
        })
    }

    func testArithmeticStringFunctionsAndConstantsTranslate() throws {
        let person = try importPerson(try personMapping(attributes: [
            "firstName": "FUNCTION($source.firstName, \"uppercaseString\")",
            "lastName": "FUNCTION($source.lastName, \"stringByAppendingString:\", ' Jr.')",
            "updatedAt": "$source.updatedAt",
        ]))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: person.attributes.map { ($0.property, $0.expression) }),
                       ["firstName": "upper($source.firstName)", "lastName": "concat($source.lastName, ' Jr.')",
                        "updatedAt": "$source.updatedAt"])
    }

    func testBuiltInArithmeticAndCastFunctionsTranslate() throws {
        let person = try importPerson(try personMapping(attributes: [
            "updatedAt": "FUNCTION(nil, \"add:to:\", $source.updatedAt, 60)",
            "firstName": "FUNCTION(nil, \"castObject:toType:\", FUNCTION(nil, \"lowercase:\", $source.firstName), 'NSString')",
        ]))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: person.attributes.map { ($0.property, $0.expression) }),
                       ["updatedAt": "$source.updatedAt + 60", "firstName": "string(lower($source.firstName))"])
    }

    func testASourceFilterBecomesThePipelineFilter() throws {
        let person = try importPerson(try personMapping(filter: "firstName != nil AND (lastName == 'O\\'Neil' OR NOT updatedAt < 10)"))
        XCTAssertEqual(person.filter, "$source.firstName != null && ($source.lastName == 'O''Neil' || !($source.updatedAt < 10))")
    }

    /// Xcode writes `<` in a predicate string as `\u3c00` (the UTF-16 code unit, low byte first).
    func testAnEscapedCharacterOfThePredicateStringIsReadAsXcodeMeantIt() throws {
        let person = try importPerson(try personMapping(filter: "updatedAt \\u3c00 10 AND firstName \\u3e00= 'B'"))
        XCTAssertEqual(person.filter, "$source.updatedAt < 10 && $source.firstName >= 'B'")
    }

    func testMatchesAndCountInAFilterTranslate() throws {
        let person = try importPerson(try personMapping(filter: "NOT firstName MATCHES '[a-hA-H].*' AND SELF.cars.@count > 1"))
        XCTAssertEqual(person.filter, "!matches($source.firstName, '[a-hA-H].*') && count($source.cars) > 1")
        XCTAssertThrowsError(try importPerson(try personMapping(filter: "MATCHES 'a'"))) { error in
            XCTAssertTrue("\(error)".contains("'MATCHES' has no pipeline equivalent"), "\(error)")
        }
    }

    /// `SELF` is the source row; `x.length` of a string attribute is its length as NSString counts it.
    func testSelfAndTheLengthOfAStringTranslate() throws {
        let person = try importPerson(try personMapping(attributes: [
            "firstName": "SELF.firstName",
            "lastName": "FUNCTION(nil, \"castObject:toType:\", FUNCTION(nil, \"multiply:by:\", $source.lastName.length, 0.2), 'NSString')",
        ]))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: person.attributes.map { ($0.property, $0.expression) }),
                       ["firstName": "$source.firstName", "lastName": "string(utf16length($source.lastName) * 0.2)"])
    }

    /// `FUNCTION($entityPolicy, "selector:", …)` calls the function the mapping's policy
    /// registers by selector; without a policy class it is refused.
    func testAFunctionOfTheEntityPolicyBecomesThePolicysFunction() throws {
        let person = try importPerson(try personMapping(
            attributes: ["firstName": "FUNCTION($entityPolicy, \"nameFrom:and:\", $source.firstName, 'x')"],
            entityMappingXML: "<attribute name=\"migrationpolicyclassname\" type=\"string\">App.PersonPolicy</attribute>"))
        XCTAssertEqual(person.attributes.map(\.expression), ["PersonPolicy_nameFrom_and_($source.firstName, 'x')"])
        XCTAssertThrowsError(try importPerson(try personMapping(attributes: ["firstName": "FUNCTION($entityPolicy, \"name:\", $source.firstName)"]))) { error in
            XCTAssertTrue("\(error)".contains("calls $entityPolicy, but the entity mapping names no migration policy class"), "\(error)")
        }
    }

    func testTheArchivedDefaultFetchGivesItsPredicateAsTheFilter() throws {
        let person = try importPerson(try personMapping(sourceExpression: Self.fetchPeopleWithFirstNames))
        XCTAssertEqual(person.filter, "$source.firstName != null")
    }

    /// A source fetch Xcode kept as text, `FETCH(…)`: the default fetch with its predicate is the filter.
    func testTheDefaultFetchWrittenAsTextGivesItsPredicateAsTheFilter() throws {
        let fetch = #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:" , "Person", "firstName != nil AND lastName == \"O'Neil\""), $manager.sourceContext, NO)"#
        let person = try importPerson(try personMapping(entityMappingXML: "<attribute name=\"sourceexpressionstring\" type=\"string\">\(fetch.replacingOccurrences(of: "\"", with: "&quot;"))</attribute>"))
        XCTAssertEqual(person.filter, "$source.firstName != null && $source.lastName == 'O''Neil'")
    }

    func testASourceExpressionOtherThanTheDefaultFetchIsRefused() throws {
        let folder = try personMapping(entityMappingXML: "<attribute name=\"sourceexpressionstring\" type=\"string\">$manager.people</attribute>")
        XCTAssertThrowsError(try importPerson(folder)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity mapping PersonToPerson: source expression $manager.people is not Core Data's default fetch"), text)
            XCTAssertTrue(text.contains("\"filter\""), text)
        }
    }

    func testAnAttributeOfTheFileEtlDoesNotReadIsRefusedNotIgnored() throws {
        let folder = try personMapping(entityMappingXML: "<attribute name=\"sourcefetchlimit\" type=\"int32\">10</attribute>")
        XCTAssertThrowsError(try importPerson(folder)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity mapping PersonToPerson: attribute 'sourcefetchlimit' of an entity mapping is not one etl reads"), text)
        }
    }

    func testAFilterEtlCannotSayIsRefusedWithTheFilterAndWhatToWrite() throws {
        XCTAssertThrowsError(try importPerson(try personMapping(filter: "firstName MATCHES[d] 'A.*'"))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("Test.xcmappingmodel/xcmapping.xml:"), text)
            XCTAssertTrue(text.contains("entity mapping PersonToPerson"), text)
            XCTAssertTrue(text.contains("firstName MATCHES[d] 'A.*'") && text.contains("no diacritic-insensitive mode"), text)
            XCTAssertTrue(text.contains("\"filter\""), text)
        }
    }

    func testAnExpressionTheImporterDoesNotKnowIsRefusedNamingFileMappingPropertyAndExpression() throws {
        let folder = try personMapping(archived: ["firstName": Self.capitalizedName])
        XCTAssertThrowsError(try importPerson(folder)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix(folder.appendingPathComponent("xcmapping.xml").path + ":"), text)
            XCTAssertTrue(text.contains("entity mapping PersonToPerson, attribute firstName"), text)
            XCTAssertTrue(text.contains("FUNCTION($source.name, \"capitalizedString\")"), text)
            XCTAssertTrue(text.contains("\"$source.firstName\""), "the expression to write instead: \(text)")
        }
    }

    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Person",
    /// "firstName != nil"), $manager.sourceContext, NO)`, Core Data's default source fetch with
    /// a predicate, archived the same way.
    static let fetchPeopleWithFirstNames = Array(Data(base64Encoded: """
        YnBsaXN0MDDUAQIDBAUGW15ZJGFyY2hpdmVyWCRvYmplY3RzVCR0b3BYJHZlcnNpb25fEA9OU0tleWVkQXJjaGl2ZXKvEBkHCBESGR4fICMoKSsuNDcRQEJDREdMT1JYVSRudWxs1AkKCwwNDg8QViRjbGFzc18QEE5TRXhwcmVzc2lvblR5cGVeTlNGUkV4cHJlc3Npb25fEA9OU01PQ0V4cHJlc3Npb26AGBAygA6AF1dtYW5hZ2Vy0hMUFRZYJGNsYXNzZXNaJGNsYXNzbmFtZaMWFxhfEBROU1ZhcmlhYmxlRXhwcmVzc2lvblxOU0V4cHJlc3Npb25YTlNPYmplY3TTCQoaGxwdWk5TVmFyaWFibGWAAxACgAJfEDFmZXRjaFJlcXVlc3RGb3JTb3VyY2VFbnRpdHlOYW1lZDpwcmVkaWNhdGVTdHJpbmc6VlBlcnNvbtITFCEioyIXGF8QGU5TQ29uc3RhbnRWYWx1ZUV4cHJlc3Npb27TCSQKJSYnXxAPTlNDb25zdGFudFZhbHVlgAeABhAAXxAQZmlyc3ROYW1lICE9IG5pbNMJJAolKieACdITFCwtoi0YV05TQXJyYXnSCS8wMVpOUy5vYmplY3RzgAuiMjOACIAK0hMUNTajNhcYXxAUTlNGdW5jdGlvbkV4cHJlc3Npb27VCTgKOTo7PD0+P1tOU0FyZ3VtZW50c1lOU09wZXJhbmReTlNTZWxlY3Rvck5hbWWADYAMEASABIAF0wkKGhscQYAPXxAQdmFsdWVGb3JLZXlQYXRoOl1zb3VyY2VDb250ZXh00hMURUajRhcYXxAcTlNLZXlQYXRoU3BlY2lmaWVyRXhwcmVzc2lvbtMJCkhJSktZTlNLZXlQYXRogBMQCoAS0gkvME2hToAU0hMUUFGkUTYXGF8QE05TS2V5UGF0aEV4cHJlc3Npb27VCTgKOTpTVFVWV4AWgBUQA4AQgBHSExRZWqNaFxhfEBhOU0ZldGNoUmVxdWVzdEV4cHJlc3Npb27RXF1Ucm9vdIABEgABhqAACAARABsAJAApADIARABgAGYAbwB2AIkAmACqAKwArgCwALIAugC/AMgA0wDXAO4A+wEEAQsBFgEYARoBHAFQAVcBXAFgAXwBgwGVAZcBmQGbAa4BtQG3AbwBvwHHAcwB1wHZAdwB3gHgAeUB6QIAAgsCFwIhAjACMgI0AjYCOAI6AkECQwJWAmQCaQJtAowCkwKdAp8CoQKjAqgCqgKsArECtgLMAtcC2QLbAt0C3wLhAuYC6gMFAwgDDQMPAAAAAAAAAgEAAAAAAAAAXwAAAAAAAAAAAAAAAAAAAxQ=
        """, options: .ignoreUnknownCharacters)!)

    /// `FUNCTION($source.name, "capitalizedString")`, archived as Xcode archives expressions
    /// (made with Python's plistlib, whose binary writer stores UIDs as Apple's does).
    static let capitalizedName = Array(Data(base64Encoded: """
        YnBsaXN0MDDUAQIDBAUGQURZJGFyY2hpdmVyWCRvYmplY3RzVCR0b3BYJHZlcnNpb25fEA9OU0tleWVkQXJjaGl2ZXKvEBAHCBMUGR4fJicsMTI1ODw+VSRudWxs1QkKCwwNDg8QERJWJGNsYXNzW05TQXJndW1lbnRzXxAQTlNFeHByZXNzaW9uVHlwZVlOU09wZXJhbmReTlNTZWxlY3Rvck5hbWWADoAMEASAA4ACXxARY2FwaXRhbGl6ZWRTdHJpbmfVCQoLDA0VFhAXGIANgAiABIAH0wkLGhscHVpOU1ZhcmlhYmxlgAYQAoAFVnNvdXJjZdIgISIjWCRjbGFzc2VzWiRjbGFzc25hbWWjIyQlXxAUTlNWYXJpYWJsZUV4cHJlc3Npb25cTlNFeHByZXNzaW9uWE5TT2JqZWN0XxAQdmFsdWVGb3JLZXlQYXRoOtIJKCkqWk5TLm9iamVjdHOAC6ErgAnTCQstLi8wWU5TS2V5UGF0aIAPEAqAClRuYW1l0iAhMzSiNCVXTlNBcnJhedIJKDY3gAug0iAhOTqkOjskJV8QE05TS2V5UGF0aEV4cHJlc3Npb25fEBROU0Z1bmN0aW9uRXhwcmVzc2lvbtIgIT07ozskJdIgIT9Ao0AkJV8QHE5TS2V5UGF0aFNwZWNpZmllckV4cHJlc3Npb27RQkNUcm9vdIABEgABhqAACAARABsAJAApADIARABXAF0AaABvAHsAjgCYAKcAqQCrAK0ArwCxAMUA0ADSANQA1gDYAN8A6gDsAO4A8AD3APwBBQEQARQBKwE4AUEBVAFZAWQBZgFoAWoBcQF7AX0BfwGBAYYBiwGOAZYBmwGdAZ4BowGoAb4B1QHaAd4B4wHnAgYCCQIOAhAAAAAAAAACAQAAAAAAAABFAAAAAAAAAAAAAAAAAAACFQ==
        """, options: .ignoreUnknownCharacters)!)
}
