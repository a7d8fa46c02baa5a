import XCTest
import ETLDocument
import ETLPipeline

/// The decoder takes each place's keys from the pipeline format: an unknown key is refused
/// with the format's keys of that place, a misspelt one with the format's closest key.
final class PipelineFormatKeysTests: XCTestCase {
    typealias Place = PipelineKey.Place

    /// A pipeline with `key` written first in the object of `place`.
    func pipeline(with key: String, in place: Place, bundle: Bool) -> String {
        func object(_ at: Place, _ members: String) -> String {
            "{ " + (at == place ? "\"\(key)\": 1, " : "") + members + " }"
        }
        let ends = bundle ? #""source": \#(object(.store, #""store": "a.sqlite""#)), "destination": \#(object(.destination, #""store": "b.sqlite", "version": "v2""#))"#
                          : #""source": \#(object(.store, #""store": "a.sqlite", "model": "a.json""#)), "destination": \#(object(.destination, #""store": "b.sqlite", "model": "b.json""#))"#
        let mapping = object(.mapping, #""source": "A", "destination": "A""#)
        let step = object(.step, (bundle ? #""from": "v1", "to": "v2", "#: "") + #""mappings": [ \#(mapping) ]"#)
        return object(.pipeline, #""format": 1, "# + (bundle ? #""models": "M.xcdatamodeld", "# : "")
                      + ends + #", "options": \#(object(.options, #""workers": 1"#)), "steps": [ \#(step) ]"#)
    }

    func error(_ text: String) -> DocumentError? {
        do {
            _ = try PipelineSpec.decode(Array(text.utf8), file: "/tmp/p.json")
            return nil
        } catch {
            return error as? DocumentError
        }
    }

    func testAnUnknownKeyIsRefusedWithTheFormatsKeysOfItsPlace() throws {
        for bundle in [false, true] {
            XCTAssertNil(error(pipeline(with: "", in: .pipeline, bundle: bundle).replacingOccurrences(of: #""": 1, "#, with: "")),
                         "the pipeline without the key is read")
            for place in [Place.pipeline, .options, .store, .destination, .step, .mapping] {
                let keys = place == .step ? PipelineFormat.Step.keys(bundle: bundle) : PipelineFormat.keys(in: place)
                let refused = try XCTUnwrap(error(pipeline(with: "zzzzzzzzzzzz", in: place, bundle: bundle)), "\(place)")
                XCTAssertEqual(refused.message, "unknown key 'zzzzzzzzzzzz'; allowed here: " + keys.map(\.name).joined(separator: ", "), "\(place)")
            }
        }
    }

    func testAMisspeltKeyGetsTheFormatsClosestKey() throws {
        for place in [Place.pipeline, .options, .store, .destination, .step, .mapping] {
            for key in (place == .step ? PipelineFormat.Step.keys(bundle: true) : PipelineFormat.keys(in: place)) where key.name.count >= 4 {
                var misspelt = key.name
                misspelt.remove(at: misspelt.index(after: misspelt.startIndex))
                let refused = try XCTUnwrap(error(pipeline(with: misspelt, in: place, bundle: true)), "\(place) \(misspelt)")
                XCTAssertEqual(refused.message, "unknown key '\(misspelt)' (did you mean '\(key.name)'?)", "\(place)")
            }
        }
    }
}
