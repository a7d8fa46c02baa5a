import Foundation

extension TemporaryFolder {
    /// Writes `name`: a pipeline of one step from the books v1 store `v1.sqlite` in this
    /// folder to a v2 store `destination`, with `mappings` (the elements of the step's
    /// `mappings` array, JSON), the pipeline's `options` (the members of its `options`
    /// object), the step's name and its `"drop"` list when given. Returns the file's path.
    ///
    ///     let pipeline = try folder.booksStepPipeline("users.json", options: #""maxRejects": 5"#, mappings: """
    ///         { "name": "Users", "source": "User", "destination": "User", "attributes": { … } }
    ///         """)
    public func booksStepPipeline(_ name: String, destination: String = "v2.sqlite", options: String? = nil,
                                  stepName: String? = nil, drop: [String] = [], mappings: String) throws -> String {
        let optionsMember = options.map { "\n  \"options\": { \($0) }," } ?? ""
        let nameMember = (stepName.map { "\"name\": \"\($0)\", " } ?? "")
            + (drop.isEmpty ? "" : "\"drop\": [" + drop.map { "\"\($0)\"" }.joined(separator: ", ") + "], ")
        return try pipeline(name, """
            { "format": 1,
              "source": { "store": "v1.sqlite", "model": "MODELS/books-v1.json" },
              "destination": { "store": "\(destination)", "model": "MODELS/books-v2.json" },\(optionsMember)
              "steps": [ { \(nameMember)"mappings": [
            \(mappings) ] } ] }
            """)
    }
}
