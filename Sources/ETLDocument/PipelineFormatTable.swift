extension PipelineFormat {
    /// The Markdown table of a place's keys, as docs/pipeline.md shows it (a test checks
    /// that the docs hold it): keys with the same requirement and meaning share a row.
    public static func docsTable(_ place: PipelineKey.Place) -> String {
        let keys = keys(in: place)
        let hasRequired = keys.contains { $0.required != nil }
        var rows: [(names: [String], key: PipelineKey)] = []
        for key in keys {
            if let last = rows.last, last.key.required == key.required, last.key.meaning == key.meaning {
                rows[rows.count - 1].names.append(key.name)
            } else {
                rows.append(([key.name], key))
            }
        }
        var text = hasRequired ? "| key | required | meaning |\n|---|---|---|\n" : "| key | meaning |\n|---|---|\n"
        for row in rows {
            let names = row.names.map { "`\($0)`" }.joined(separator: ", ")
            text += "| \(names) |" + (hasRequired ? " \(row.key.required ?? "") |" : "") + " \(row.key.meaning) |\n"
        }
        return text
    }
}
