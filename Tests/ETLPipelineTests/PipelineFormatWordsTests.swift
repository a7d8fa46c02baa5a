import XCTest
import ETLDocument
import ETLModel
import ETLCoreData
import ETLPipeline

/// The words the pipeline format describes for a key are the ones the decoder takes: the
/// description and the enums that read them say the same.
final class PipelineFormatWordsTests: XCTestCase {
    func words(_ key: PipelineKey) -> Set<String> {
        switch key.type {
        case .choice(let words), .choiceOrMap(let words): return Set(words)
        default: XCTFail("\(key) takes no words"); return []
        }
    }

    func testEachKeysWordsAreTheDecodersOwn() {
        XCTAssertEqual(words(PipelineFormat.Store.layout), Set(LayoutKind.allCases.map(\.rawValue)))
        XCTAssertEqual(words(PipelineFormat.Options.unreadable), Set(UnreadableAction.allCases.map(\.rawValue)))
        XCTAssertEqual(words(PipelineFormat.Mapping.unreadable), Set(UnreadableAction.allCases.map(\.rawValue)))
        XCTAssertEqual(words(PipelineFormat.Top.danglingLinks), Set(DanglingLinkRules.Action.allCases.map(\.rawValue)))
        for kind in UnmodeledTable.Kind.allCases {
            XCTAssertEqual(words(kind.pipelineKey), Set(UnmodeledTableAction.allCases.map(\.rawValue)), "\(kind)")
        }
    }

    /// Every kind of table that belongs to no entity has its own top-level key.
    func testEachUnmodeledKindHasATopLevelKey() {
        let keys = UnmodeledTable.Kind.allCases.map(\.pipelineKey)
        XCTAssertEqual(Set(keys).count, keys.count)
        XCTAssertTrue(keys.allSatisfy { PipelineFormat.Top.all.contains($0) })
    }
}
