import Foundation
import XCTest
import ETL
import ETLExpression

/// Asserts that `etl plan` (`PlanReport.make`) and `etl run` (`Migration.run`) refuse
/// `migration` alike: both throw, with the same message, and hands the run's error to
/// `check`. Every test of the suite that asserts a refusal made before a row is read goes
/// through it, so that `plan` says everything `run` would refuse.
func assertRefusedAlike(_ made: @autoclosure () throws -> Migration, file: StaticString = #filePath, line: UInt = #line,
                        _ check: (Error) -> Void = { _ in }) {
    let migration: Migration
    do {
        migration = try made()
    } catch {
        // Refused before there was a migration to plan or run.
        return check(error)
    }
    var planned: Error?
    do {
        let report = try PlanReport.make(migration)
        XCTFail("etl plan accepted what etl run is expected to refuse: \(report.hops.count) hops", file: file, line: line)
    } catch {
        planned = error
    }
    do {
        _ = try migration.run()
        XCTFail("etl run accepted it", file: file, line: line)
    } catch {
        XCTAssertEqual(planned.map { "\($0)" }, "\(error)", "etl plan and etl run refuse with different messages", file: file, line: line)
        check(error)
    }
}

/// `assertRefusedAlike`, then the run's error is a `MigrationError` containing every string.
func assertRefusedAlike(_ made: @autoclosure () throws -> Migration, contains parts: [String],
                        file: StaticString = #filePath, line: UInt = #line) {
    assertRefusedAlike(try made(), file: file, line: line) { error in
        guard let error = error as? MigrationError else {
            return XCTFail("expected a MigrationError, got \(type(of: error)): \(error)", file: file, line: line)
        }
        for part in parts {
            XCTAssertTrue(error.description.contains(part), "\(error.description)\n  does not contain: \(part)", file: file, line: line)
        }
    }
}
