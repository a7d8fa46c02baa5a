import XCTest
import Foundation
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// NSPredicate's string comparisons with their options in a mapping model's filter:
/// both sides folded as the options say, `BEGINSWITH` and its kin as `matches()` of the
/// folded text against the quoted, folded literal (`StringComparison`).
final class PredicateOptionsTests: XCTestCase {
    func testEqualityWithOptionsFoldsBothSides() throws {
        XCTAssertEqual(try PredicateTranslation.filter("name ==[c] 'Ab'"), "casefold($source.name) == casefold('Ab')")
        XCTAssertEqual(try PredicateTranslation.filter("name !=[cd] \"É\""), "casefold(diacriticfold($source.name)) != casefold(diacriticfold('É'))")
        XCTAssertEqual(try PredicateTranslation.filter("NOT name =[d] other AND x == 1"), "!(diacriticfold($source.name) == diacriticfold($source.other)) && $source.x == 1")
        XCTAssertEqual(try PredicateTranslation.filter("name == 'Ab'"), "$source.name == 'Ab'", "no options: as before")
        XCTAssertEqual(try PredicateTranslation.filter("name ==[c] nil OR tags.@count !=[cd] 2"), "$source.name == null || count($source.tags) != 2",
                       "no text on one side: the plain comparison (casefold(null) would not type-check)")
    }

    func testPrefixSuffixContainsAndLikeAreMatchesOfTheQuotedLiteral() throws {
        XCTAssertEqual(try PredicateTranslation.filter("title BEGINSWITH[c] 'Ab.'"), #"matches(casefold($source.title), '(?s)\Qab.\E.*')"#)
        XCTAssertEqual(try PredicateTranslation.filter("title CONTAINS \"it's\""), #"matches(normalize($source.title), '(?s).*\Qit''s\E.*')"#)
        XCTAssertEqual(try PredicateTranslation.filter("title ENDSWITH[d] 'X'"), #"matches(diacriticfold($source.title), '(?s).*\QX\E')"#)
        XCTAssertEqual(try PredicateTranslation.filter("title LIKE[cd] 'A*b?'"), #"matches(casefold(diacriticfold($source.title)), '(?s)\Qa\E.*\Qb\E.')"#)
        // A literal beyond ASCII is folded when the row is read, by the same function.
        XCTAssertEqual(try PredicateTranslation.filter("title BEGINSWITH[cd] 'É'"),
                       #"matches(casefold(diacriticfold($source.title)), concat('(?s)\Q', casefold(diacriticfold('É')), '\E.*'))"#)
    }

    func testMatchesCaseInsensitiveIsTheICUFlag() throws {
        XCTAssertEqual(try PredicateTranslation.filter("title MATCHES[c] '[a-h].*'"), "matches($source.title, '(?i)[a-h].*')")
    }

    func testWhatHasNoExactTranslationIsRefusedSayingWhy() {
        func refusal(_ predicate: String) -> String {
            do { return "translated: \(try PredicateTranslation.filter(predicate) ?? "nil")" } catch { return "\(error)" }
        }
        XCTAssertEqual(refusal("title MATCHES[cd] 'a.*'"), "MATCHES[cd]: a regular expression has no diacritic-insensitive mode etl could match Foundation's with")
        XCTAssertEqual(refusal("title BEGINSWITH[n] 'a'"), "BEGINSWITH[n]: etl translates the options c and d (case- and diacritic-insensitive), not 'n'")
        XCTAssertEqual(refusal("title BEGINSWITH[c] name"), "BEGINSWITH[c] compares with a key path, not a string literal: etl translates it only with a literal")
        XCTAssertEqual(refusal(#"title LIKE 'a\\*'"#), #"LIKE 'a\*': a backslash in the text has no translation etl knows"#)
        XCTAssertTrue(refusal("title BEGINSWITH").contains("'BEGINSWITH' has no pipeline equivalent"))
        XCTAssertTrue(refusal("title IN {'a'}").contains("'IN' has no pipeline equivalent"))
    }
}
