/// Why one store could not be migrated, found by the batch itself.
struct BatchStoreError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
