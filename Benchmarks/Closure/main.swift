import Foundation
import ETL
import ETLCommandLine

// `etl-bench-closure` is the whole `etl` command line plus one policy, `booksInSwift`:
// benchmark (d) of Benchmarks/run.py, the books v1 → v2 step with the Books mapping's
// attribute work done by a Swift closure instead of declared expressions.
//
//     etl-bench-closure run Benchmarks/pipelines/books-v1-v2-closure.json --source V1 --destination V2
//
// The pipeline's Books mapping names the policy and declares no attributes, so the row the
// engine hands to `create` has every attribute null: the closure computes title, fileURL,
// published and price from the source row, with the same semantics as the declarative
// `$source.title`, `$source.fileURL`, `$source.published`, `$source.price` (a missing or
// null value stays null). Relationships (users, authors) stay declared.

let booksInSwift = Policy(prepare: { plan in
    // Once, when the pipeline is planned: each field's place in the source row and in the
    // declared Book (`output`, the mapping's own row); per row, no name is looked up.
    let title = try plan.source("title", as: String.self), fileURL = try plan.source("fileURL", as: String.self)
    let published = try plan.source("published", as: Date.self), price = try plan.source("price", as: Double.self)
    let newTitle = try plan.attribute("title", as: String.self), newFileURL = try plan.attribute("fileURL", as: String.self)
    let newPublished = try plan.attribute("published", as: Date.self), newPrice = try plan.attribute("price", as: Double.self)
    return { book, output in
        output[newTitle] = book[title]
        output[newFileURL] = book[fileURL]
        output[newPublished] = book[published]
        output[newPrice] = book[price]
    }
})

// (d2): the same attribute work as Swift functions the pipeline calls in its expressions
// (`books-v1-v2-functions.json`: "title": "swiftText($source.title)", …). Functions are
// pure and cannot fail, so the step still runs inside SQLite, which calls them per row.
let functions: [String: ExpressionFunction] = [
    "swiftText": ExpressionFunction([.string], returns: .string) { arguments in
        guard case .string(let text) = arguments[0] else { return .null }
        return .string(text)
    },
    "swiftDate": ExpressionFunction([.date], returns: .date) { arguments in
        guard case .date(let seconds) = arguments[0] else { return .null }
        return .date(seconds)
    },
    "swiftDouble": ExpressionFunction([.double], returns: .double) { arguments in
        guard case .double(let value) = arguments[0] else { return .null }
        return .double(value)
    },
]

ETLCommand.main(policies: ["booksInSwift": booksInSwift], functions: functions)
