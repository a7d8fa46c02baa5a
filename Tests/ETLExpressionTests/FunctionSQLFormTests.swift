import XCTest
import ETLStore
import ETLModel
@testable import ETLExpression

/// A built-in with an SQL form gives in SQLite what the evaluator gives, or fails where it
/// fails: the definition that makes the form also registers the `etl_…` function the SQL
/// calls. The functions are read from `FunctionLibrary`'s table, so one added with a form
/// of one string argument is checked here too.
final class FunctionSQLFormTests: XCTestCase {
    func testEachFunctionOfAStringWithAFormGivesInSQLWhatTheEvaluatorGives() throws {
        let model = Model(version: "m", entities: [
            Entity(name: "Note", attributes: [Attribute(name: "v", type: .string)], relationships: []),
        ])
        let scope = ExpressionScope(sourceModel: model, source: "Note")
        let translator = SQLTranslator(layout: PlainLayout(model: model), entity: "Note", alias: "s")
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let texts = [" a\tb ", "Straße", "A\u{30A}😀", "", "ÉCOLE", "12", " 12 ", "1.5", "yes", "off", "2024-01-02T03:04:05Z", "abc"]
        var pushed: [String] = []
        for name in FunctionLibrary.names {
            let slots = SlotTable()
            guard let compiled = try? CompiledExpression.compile("\(name)($source.v)", scope: scope, slots: slots),
                  let sql = compiled.form.flatMap(translator.sql) else { continue }
            pushed.append(name)
            for text in texts {
                let row = slots.paths.map { $0.segments == ["v"] ? Value.string(text) : .null }
                let evaluated = Result { try compiled.evaluate(EvaluationContext(slots: row)).sqlValue }
                let inSQL = Result { try db.rows("SELECT \(sql) FROM (SELECT ? AS v) AS s", [.text(text)])[0][0] }
                switch (evaluated, inSQL) {
                case (.success(let a), .success(let b)): XCTAssertEqual(b, a, "\(name)('\(text)')")
                case (.failure, .failure): break
                default: XCTFail("\(name)('\(text)'): evaluated \(evaluated), in SQL \(inSQL)")
                }
            }
        }
        XCTAssertTrue(Set(["trim", "normalize", "casefold", "diacriticfold", "utf16length", "integer", "double", "boolean", "date"])
            .isSubset(of: pushed), "\(pushed)")
    }

    /// Each name is defined once, and the names a program's function cannot take are the table's.
    func testEachBuiltinIsDefinedOnce() {
        XCTAssertEqual(Set(FunctionLibrary.names).count, FunctionLibrary.names.count)
        XCTAssertEqual(ExpressionFunction.builtinNames, FunctionLibrary.definitions.map(\.name))
        for name in FunctionLibrary.names { XCTAssertEqual(FunctionLibrary.definition(name)?.name, name) }
    }
}
