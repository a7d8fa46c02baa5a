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

/// A source value as the destination attribute of that type stores it: null stays null.
@inline(__always)
private func text(_ value: String?) -> Value { value.map(Value.string) ?? .null }

let booksInSwift = Policy(create: { book, output in
    // `output.rows[0]` is the declared Book (the mapping's own row); set its attributes.
    var values = output.rows[0].values
    values["title"] = text(book.string("title"))
    values["fileURL"] = text(book.string("fileURL"))
    switch book["published"] {                      // a date: seconds since 1970, or null
    case .date(let seconds): values["published"] = .date(seconds)
    default: values["published"] = .null
    }
    values["price"] = book.double("price").map(Value.double) ?? .null
    output.rows[0].values = values
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
