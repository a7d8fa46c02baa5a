import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

/// A source `"version"` written in the pipeline is believed, not detected. When the store
/// does not hold it, the error says which version etl finds there instead, so that the fix
/// (write that one, or leave `"version"` out) is in the message.
enum GivenSourceVersion {
    /// "; the store is version v1.1.0 (…): …" or "; it matches no version of …", to end the
    /// error of a store that does not hold `given`.
    static func hint(_ store: Database, given: String, versions: [Model], layout: LayoutKind) -> String {
        guard !versions.isEmpty else { return "" }
        do {
            let found = try VersionDetector.detect(store: store, versions: versions, layout: layout)
            guard found.version != given else { return "" }
            return "; the store is version \(found.version) (\(found.evidence == .schema ? "its tables and columns" : "its tables, columns and version hashes") match it): write \"version\": \"\(found.version)\" "
                + "in the pipeline's source, or leave \"version\" out to have it detected"
        } catch {
            return "; nor does it hold another version of the pipeline's models (\(error))"
        }
    }
}
