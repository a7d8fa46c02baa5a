import Foundation
import ETL

/// The policy example: each v2 `Post` (its text in `content`) becomes a v3 `Post` plus one
/// `Section` whose title is the first words of the content followed by "…" and whose body
/// is the content, related both ways (`Post.sections` ↔ `Section.post`).
public enum PostSections {
    public static let policies: [String: Policy] = ["addSection": addSection]

    public static let addSection = Policy(
        creates: ["Section"],
        create: { post, output in
            // `output` already holds the Post the pipeline's attributes make; add its Section.
            guard let content = post.string("content") else { return }
            output.insert("Section", ["title": .string(title(of: content)), "body": .string(content)])
        },
        relate: { row in
            // Link each new Post to the Section made from the same source row.
            guard row.entity == "Post" else { return [:] }
            return ["sections": try row.destinations("Posts/Section", [row.source.key])]
        })

    /// The first five words, and "…".
    public static func title(of content: String) -> String {
        content.split(whereSeparator: { $0.isWhitespace }).prefix(5).joined(separator: " ") + "…"
    }

    /// A v2 store of `count` posts (plain layout), some with non-Latin text.
    public static func writeSample(to path: String, count: Int) throws {
        let model = try ModelFile.load(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("models/posts-v2.json").path)
        try? FileManager.default.removeItem(atPath: path)
        let db = try Database(path: path, mode: .create)
        let texts = ["Migrating stores offline is mostly about not losing a row.",
                     "Ünïcödé stays intact: naïve café, Ελληνικά, 日本語のテキスト, emoji 🚀 and all.",
                     "Short.", "Line one\nline two\ttabbed — and an em dash."]
        try db.transaction {
            for sql in PlainLayout(model: model).schemaSQL() { try db.execute(sql) }
            let insert = try db.prepare("INSERT INTO Post (id, content, created) VALUES (?, ?, ?)")
            for i in 1...max(1, count) {
                try insert.run([.integer(Int64(i)), .text("Post \(i): " + texts[i % texts.count]), .real(Double(1_700_000_000 + i * 3600))])
            }
        }
    }
}
