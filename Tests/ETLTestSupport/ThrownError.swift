import XCTest

/// Runs `body`, expecting it to throw an `E`, and returns that error; any other outcome is
/// a failure at the caller's line.
///
///     let error = thrownError(StoreError.self) { try Database(path: "missing", mode: .readOnly) }
public func thrownError<E: Error>(_ type: E.Type, file: StaticString = #filePath, line: UInt = #line,
                                  _ body: () throws -> Any) -> E? {
    do {
        let value = try body()
        XCTFail("expected \(E.self), got \(value)", file: file, line: line)
    } catch let error as E {
        return error
    } catch {
        XCTFail("expected \(E.self), got \(Swift.type(of: error)): \(error)", file: file, line: line)
    }
    return nil
}
