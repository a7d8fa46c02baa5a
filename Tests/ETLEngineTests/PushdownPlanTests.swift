import XCTest
import ETLTestSupport
import ETLStore
import ETLPipeline
import ETLExpression
@testable import ETLEngine

/// A pushed-down mapping's statements (`PushdownPlan.Create`, `PushdownPlan.Relate`) are
/// parts, rendered where they run: each kind's text, on its own, for the books pipeline and
/// variants of it.
final class PushdownPlanTests: XCTestCase {
    /// `pipelines/books.json` (v1 → v2 → v3) planned, with `replacements` made; mapping
    /// policy `tidy` is registered (a create hook SQLite can call).
    func plan(_ replacements: [(String, String)] = []) throws -> Plan {
        var text = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"models/", with: "\"" + repositoryPath("pipelines/models") + "/")
        for (old, new) in replacements {
            XCTAssertTrue(text.contains(old), old)
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try Planner(policies: [PolicySignature(name: "tidy")]).plan(try PipelineSpec.decode(Array(text.utf8), file: "/tmp/books.json"))
    }

    /// Mapping `name` of step `step` pushed down.
    func create(_ name: String, step: Int, of plan: Plan) throws -> PushdownPlan.Create {
        let step = plan.steps[step]
        // The join tables' primary keys: the owner's column first.
        let pushdown = try PushdownPlan.make(step, policy: { $0.policy == nil ? nil : Policy() }) { _ in ["source_id", "target_id"] }
        return try XCTUnwrap(pushdown.creates.first { step.mappings[$0.mapping].name == name })
    }

    /// The statement of mapping `name`'s relationship `relationship` in step `step`.
    func relate(_ name: String, _ relationship: String, step: Int, of plan: Plan) throws -> PushdownPlan.Relate {
        let step = plan.steps[step]
        let pushdown = try PushdownPlan.make(step, policy: { $0.policy == nil ? nil : Policy() }) { _ in ["source_id", "target_id"] }
        let mapping = try XCTUnwrap(step.mappingIDs.first { step.mappings[$0].name == name })
        return try XCTUnwrap(pushdown.relates[mapping]?.first { $0.relationship == relationship })
    }

    /// How `SQLTranslator` reads a stored string (a blob in it goes to Swift) and an integer.
    /// `checked`: read in a statement whose row guard tested its values (`rowGuard`).
    func string(_ column: String, checked: Bool = true) -> String {
        let test = #"s."\#(column)" >= '' AND s."\#(column)" < x''"# + (checked ? "" : #" AND etl_utf8(s."\#(column)")"#)
        return #"(CASE WHEN \#(test) THEN s."\#(column)" WHEN s."\#(column)" IS NULL THEN NULL ELSE etl_value_string(s."\#(column)") END)"#
    }
    /// `checked`: read where the row guard found every value readable, so only the
    /// storage class is told (a number: CAST).
    func integer(_ column: String, checked: Bool = true) -> String {
        let test = checked ? #"s."\#(column)" < ''"# : #"(s."\#(column)" < '' AND s."\#(column)" = CAST(s."\#(column)" AS INTEGER))"#
        return #"(CASE WHEN \#(test) THEN CAST(s."\#(column)" AS INTEGER) WHEN s."\#(column)" IS NULL THEN NULL ELSE etl_value_integer(s."\#(column)") END)"#
    }
    /// The row guard of a mapping reading `columns` (name, type) of `s`, around `then`:
    /// one `etl_readable` a row, each type by its letter (`SQLTranslator.readableCode`).
    func guarded(_ columns: [(String, String)], then: String = "1") -> String {
        let codes = columns.map { $0.1 == "string" ? "t" : "i" }.joined()
        let pairs = columns.map { name, _ in #"'$source.\#(name)', s."\#(name)""# }
        return "(CASE WHEN etl_readable('\(codes)', " + pairs.joined(separator: ", ") + ") THEN \(then) END)"
    }

    func testAMappingKeepingSourceKeysInsertsAKeyRangeUnderThoseKeys() throws {
        let users = try create("Users", step: 0, of: plan())
        let userGuard = guarded([("userId", "integer"), ("name", "string")])
        XCTAssertEqual(users.kind, .sourceKeys)
        XCTAssertEqual(users.count.sql, #"SELECT count(*) FROM src."User" s"#)
        XCTAssertEqual(users.bound.sql, #"SELECT s."id" FROM src."User" s WHERE s."id" >= ?1 ORDER BY s."id" LIMIT 1 OFFSET ?2"#)
        XCTAssertEqual(users.insert.sql, #"INSERT INTO main."User" ("id", "userId", "name") SELECT s."id", "#
                       + integer("userId") + ", " + string("name") + #" FROM src."User" s WHERE "# + userGuard + #" AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id""#)
        XCTAssertEqual(users.rejects?.sql, #"SELECT count(*) FROM src."User" s WHERE s."id" >= ?1 AND s."id" <= ?2 AND CASE WHEN "# + userGuard + " THEN ("
                       + "(\(integer("userId")) IS NULL) + (\(string("name")) IS NULL)) >= 0 END")
        XCTAssertEqual(users.blobs?.sql, #"SELECT 1 FROM src."User" s WHERE s."name" >= x'' LIMIT 1"#)
        XCTAssertNil(users.append, "kept keys are never numbered")
        XCTAssertNil(users.fillKeys)
    }

    /// A column read only through functions that read it by the reading rule themselves
    /// (`trim()`, `date()`, `boolean()` … of a string attribute) is left out of the row
    /// guard, as long as every row the guard would test evaluates them: not under a filter,
    /// and not where the column is also read another way.
    func testAColumnReadOnlyByFunctionsOfTheReadingRuleIsLeftOutOfTheRowGuard() throws {
        let trimmed = [(#""name": "$source.name" }"#, #""name": "trim($source.name)" }"#)]
        let users = try create("Users", step: 0, of: plan(trimmed))
        XCTAssertEqual(users.insert.sql, #"INSERT INTO main."User" ("id", "userId", "name") SELECT s."id", "#
                       + integer("userId") + #", etl_text_trim(s."name") FROM src."User" s WHERE "# + guarded([("userId", "integer")])
                       + #" AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id""#)
        // Under a filter, the rows it leaves out are tested too (row by row reads them all).
        let filtered = try create("Users", step: 0, of: plan(trimmed + [(#""destination": "User",\#n          "attributes": { "userId""#,
                                                                           #""destination": "User", "filter": "$source.userId != 0",\#n          "attributes": { "userId""#)]))
        XCTAssertTrue(filtered.insert.sql.contains(#"etl_readable('it', '$source.userId', s."userId", '$source.name', s."name")"#), filtered.insert.sql)
        // Read as it is too, in a comparison: guarded.
        let counted = try create("Users", step: 0, of: plan([(#""userId": "$source.userId", "name": "$source.name" }"#,
                                                              #""userId": "if($source.name == 'x', 1, 2)", "name": "trim($source.name)" }"#)]))
        XCTAssertTrue(counted.insert.sql.contains(#"etl_readable('t', '$source.name', s."name")"#), counted.insert.sql)
        // Every column read by the rule: no guard at all.
        let both = try create("Users", step: 0, of: plan([(#""userId": "$source.userId", "name": "$source.name" }"#,
                                                           #""userId": "integer($source.name)", "name": "casefold($source.name)" }"#)]))
        XCTAssertFalse(both.insert.sql.contains("etl_readable"), both.insert.sql)
    }

    func testAUniqueByMappingFillsItsKeysThenInsertsOneRowPerKey() throws {
        let authors = try create("Authors", step: 0, of: plan())
        XCTAssertEqual(authors.kind, .unique)
        XCTAssertEqual(authors.fillKeys?.sql, #"INSERT INTO work.unique_key ("mapping", "key", "destination", "source", "rows") "#
                       + "SELECT 2, k, ?1 - 1 + row_number() OVER (ORDER BY first), first, n FROM (SELECT \(string("authorName")) AS k, "
                       + #"min(s."id") AS first, count(*) AS n FROM src."Book" s WHERE "# + guarded([("authorName", "string")], then: #"((s."authorName" IS NOT NULL))"#)
                       + " GROUP BY k) ORDER BY k")
        XCTAssertEqual(authors.insert.sql, #"INSERT INTO main."Author" ("id", "name") SELECT u.destination, u.key FROM work.unique_key u "#
                       + "WHERE u.mapping = 2 AND u.destination >= ?1 ORDER BY u.destination", "the name is the key: no source row read")
        XCTAssertEqual(authors.passed.sql, "SELECT coalesce(sum(rows), 0) FROM work.unique_key WHERE mapping = 2 AND destination >= ?1")
        XCTAssertNil(authors.nullKey, "the filter excludes a null key")

        let unfiltered = try create("Authors", step: 0, of: plan([(#"          "filter": "$source.authorName != null",\#n"#, "")]))
        XCTAssertEqual(unfiltered.nullKey?.sql, #"SELECT 1 FROM src."Book" s WHERE \#(guarded([("authorName", "string")])) AND \#(string("authorName")) IS NULL LIMIT 1"#)
    }

    func testAMappingSharingItsTableNumbersItsRowsOrAppendsThem() throws {
        // Authors without uniqueBy and Writers both write Author: neither keeps source keys.
        let shared = try plan([(#"          "uniqueBy": "$source.authorName",\#n"#, ""),
                               (#",\#n            "authors": "destinations('Authors', $source)""#, ""),
                               (#"{ "name": "$source.authorName" }\#n        }"#, #"{ "name": "$source.authorName" }\#n        },\#n"#
                                + #"        { "name": "Writers", "source": "User", "destination": "Author", "attributes": { "name": "$source.name" } }"#)])
        let writers = try create("Writers", step: 0, of: shared)
        XCTAssertEqual(writers.kind, .nextKeys)
        XCTAssertEqual(writers.insert.sql, #"INSERT INTO main."Author" ("id", "name") SELECT ?3 - 1 + row_number() OVER (ORDER BY s."id"), "#
                       + string("name") + #" FROM src."User" s WHERE \#(guarded([("name", "string")])) AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id""#)
        XCTAssertEqual(writers.append?.sql, #"INSERT INTO main."Author" ("name") SELECT \#(string("name")) FROM src."User" s "#
                       + #"WHERE \#(guarded([("name", "string")])) AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id""#)
    }

    func testAForEachMappingInsertsItsPairsWithTheirLinks() throws {
        let files = try create("Files", step: 1, of: plan())
        XCTAssertEqual(files.kind, .forEach)
        let pairs = #"FROM src."Book" s CROSS JOIN src."Book_users" p ON p."source_id" = s."id""#
        let book = #"CASE WHEN (s."id" BETWEEN ?4 AND ?5 AND s."id" = CAST(s."id" AS INTEGER)) THEN s."id" ELSE (SELECT t."id" FROM main."Book" t WHERE t."id" = s."id") END"#
        let user = #"CASE WHEN (p."target_id" BETWEEN ?6 AND ?7 AND p."target_id" = CAST(p."target_id" AS INTEGER)) THEN p."target_id" ELSE (SELECT t."id" FROM main."User" t WHERE t."id" = p."target_id") END"#
        let inRange = #"WHERE \#(guarded([("fileURL", "string")], then: #"((s."fileURL" IS NOT NULL))"#)) AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id", p."target_id""#
        XCTAssertEqual(files.links.map(\.value), [book, user])
        XCTAssertEqual(files.insert.sql, #"INSERT INTO main."File" ("id", "fileURL", "book_id", "user_id") "#
                       + #"SELECT ?3 - 1 + row_number() OVER (ORDER BY s."id", p."target_id"), \#(string("fileURL")), \#(book), \#(user) \#(pairs) \#(inRange)"#)
        XCTAssertEqual(files.append?.sql, #"INSERT INTO main."File" ("fileURL", "book_id", "user_id") SELECT \#(string("fileURL")), \#(book), \#(user) \#(pairs) \#(inRange)"#)
        XCTAssertEqual(files.pairs?.sql, #"SELECT count(*) \#(pairs) WHERE s."id" >= ?1 AND s."id" <= ?2"#)
        XCTAssertEqual(files.pairsOfEveryKey?.sql, #"SELECT count(*) FROM src."Book_users" p WHERE p."source_id" >= ?1 AND p."source_id" <= ?2 "#
                       + #"AND p."source_id" = CAST(p."source_id" AS INTEGER)"#)
        XCTAssertEqual(files.linksSet?.sql, #"SELECT count("book_id") + count("user_id") FROM main."File" WHERE main."File"."id" >= ?1 AND main."File"."id" <= ?2"#)
        XCTAssertNil(files.associate, "nothing reads the pairs' associations")

        // A relationship pointing at the pairs' rows finds them through the associations.
        let pointedAt = try create("Files", step: 1, of: plan([(#""name": "$source.name" }\#n        },\#n        {\#n          "name": "Authors", "source": "Author""#,
                                                                #""name": "$source.name" }, "relationships": { "files": "destinations('Files', $source.books)" }\#n"#
                                                                + #"        },\#n        {\#n          "name": "Authors", "source": "Author""#)]))
        XCTAssertEqual(pointedAt.associate?.sql, #"INSERT INTO work.association ("mapping", "destination", "source", "item") "#
                       + #"SELECT 3, ?3 - 1 + row_number() OVER (ORDER BY s."id", p."target_id"), s."id", p."target_id" \#(pairs) \#(inRange)"#)
    }

    func testAPolicySQLiteCallsIsCalledOncePerRowInsideTheInsert() throws {
        let users = try create("Users", step: 0, of: plan([(#""name": "Users", "source": "User", "destination": "User","#,
                                                             #""name": "Users", "source": "User", "destination": "User", "policy": "tidy","#)]))
        XCTAssertEqual(users.insert.sql, #"INSERT INTO main."User" ("id", "userId", "name") SELECT k, etl_policy_field_0(p, 0), etl_policy_field_0(p, 1) "#
                       + #"FROM (SELECT s."id" AS k, etl_policy_0(s."id", \#(integer("userId")), \#(string("name")), s."userId", s."name") AS p "#
                       + #"FROM src."User" s WHERE \#(guarded([("userId", "integer"), ("name", "string")])) AND s."id" >= ?1 AND s."id" <= ?2 ORDER BY s."id" LIMIT -1 OFFSET 0)"#)
    }

    /// `Users.files`, a to-many stored in File.user_id: the first owner of each pair's row sets it.
    let usersFiles = [(#""name": "$source.name" }\#n        },\#n        {\#n          "name": "Authors", "source": "Author""#,
                       #""name": "$source.name" }, "relationships": { "files": "destinations('Files', $source.books)" }\#n"#
                       + #"        },\#n        {\#n          "name": "Authors", "source": "Author""#)]

    func testAJoinTableOfRowsKeepingSourceKeysCopiesTheSourcePairs() throws {
        let users = try relate("Books", "users", step: 0, of: plan())
        let insert = #"INSERT OR IGNORE INTO main."Book_users" ("source_id", "target_id") SELECT p."source_id", p."target_id" "#
            + #"FROM src."Book_users" p NOT INDEXED"#
        let owner = #" CROSS JOIN src."Book" a ON a."id" = p."source_id""#
        let target = #" CROSS JOIN main."User" td ON td."id" = p."target_id""#
        XCTAssertEqual(users.statement.joinTable, "Book_users")
        XCTAssertEqual(users.statement.sql, insert + owner + target + " ORDER BY 1, 2")
        XCTAssertEqual(users.dense?.statement.sql, insert + owner + #" WHERE (+p."target_id" BETWEEN ?1 AND ?2 AND +p."target_id" = CAST(+p."target_id" AS INTEGER)) ORDER BY 1, 2"#)
        XCTAssertEqual(users.denseOwner?.statement.sql, insert + target + #" WHERE (+p."source_id" BETWEEN ?3 AND ?4 AND +p."source_id" = CAST(+p."source_id" AS INTEGER)) ORDER BY 1, 2"#)
        XCTAssertEqual(users.denseOwner?.both?.sql, insert + #" WHERE (+p."source_id" BETWEEN ?3 AND ?4 AND +p."source_id" = CAST(+p."source_id" AS INTEGER))"#
                       + #" AND (+p."target_id" BETWEEN ?1 AND ?2 AND +p."target_id" = CAST(+p."target_id" AS INTEGER)) ORDER BY 1, 2"#)
        XCTAssertEqual(users.verbatim?.sourceTable, "Book_users")
        XCTAssertNil(users.ahead, "the users are the step's rows")
    }

    func testAJoinTableToUniqueByRowsIsWorkedOutAheadARangeAtATime() throws {
        let authors = try relate("Books", "authors", step: 0, of: plan())
        let select = #"SELECT tu.destination, a."id" FROM src."Book" a CROSS JOIN work.unique_key tu ON tu.mapping = 2 AND tu.key = "#
            + string("authorName", checked: false).replacingOccurrences(of: "s.", with: "a.")
        let insert = #"INSERT OR IGNORE INTO main."Author_books" ("source_id", "target_id") "#
        let filter = #"(a."authorName" IS NOT NULL)"#
        XCTAssertEqual(authors.statement.sql, insert + select + " WHERE \(filter) ORDER BY 1, 2")
        XCTAssertNil(authors.dense, "the authors' keys are numbered, not kept")
        let ahead = try XCTUnwrap(authors.ahead)
        XCTAssertEqual(PushdownPlan.RelateStatement.pairs(ahead.statement), authors.statement)
        XCTAssertEqual(ahead.table, "Author_books")
        XCTAssertEqual(ahead.keysOf, [MappingID(2)])
        XCTAssertEqual(ahead.statement.head, insert)
        XCTAssertEqual(ahead.pairs.sql, select + " WHERE \(filter)", "the pairs in no order")
        XCTAssertEqual(ahead.ranges?.table, "Book")
        XCTAssertEqual(ahead.ranges?.key, "id")
        XCTAssertEqual(ahead.ranges?.pairs.sql, select + #" WHERE a."id" BETWEEN ?1 AND ?2 AND \#(filter)"#)
    }

    /// Whether links are worked out ahead is decided on the statements' parts.
    func testLinksAreWorkedOutAheadWhenTheirStatementAloneWritesTheTable() throws {
        let plan = try plan()
        let pushdown = try PushdownPlan.make(plan.steps[0], policy: { _ in nil }) { _ in ["source_id", "target_id"] }
        let statements = pushdown.relates.values.flatMap { $0 }
        let authors = try relate("Books", "authors", step: 0, of: plan)
        XCTAssertTrue(AheadWork.worksAhead(authors, among: statements, keyed: [MappingID(2)]))
        XCTAssertFalse(AheadWork.worksAhead(authors, among: statements, keyed: []), "the authors' keys are not worked out ahead")
        XCTAssertFalse(AheadWork.worksAhead(authors, among: statements + [authors], keyed: [MappingID(2)]), "two statements write Author_books")
        let users = try relate("Books", "users", step: 0, of: plan)
        XCTAssertFalse(AheadWork.worksAhead(users, among: statements, keyed: [MappingID(2)]))
    }

    func testAToManyStoredInTheTargetsKeyColumnSetsItWhereNoEarlierStatementDid() throws {
        let files = try relate("Users", "files", step: 1, of: plan(usersFiles))
        guard case .keyColumn(let update) = files.statement else { return XCTFail("\(files.statement)") }
        XCTAssertEqual(update.table, .main("File"))
        XCTAssertNil(files.statement.joinTable)
        XCTAssertEqual(files.statement.table, "File")
        XCTAssertEqual(files.statement.sql, #"UPDATE main."File" SET "user_id" = x.o FROM (SELECT ta.destination AS t, min(p."target_id") AS o "#
                       + #"FROM src."Book_users" p NOT INDEXED CROSS JOIN src."User" a ON a."id" = p."target_id" "#
                       + #"CROSS JOIN work.association ta ON ta.mapping = 3 AND ta.source = p."source_id" GROUP BY 1) AS x "#
                       + #"WHERE main."File"."id" = x.t AND main."File"."user_id" IS NULL"#)
        XCTAssertNil(files.ahead)
    }

    /// And SQLite takes every statement as rendered, over the step's tables.
    func testSQLitePreparesEveryStatement() throws {
        let folder = try TemporaryFolder.forTest(self)
        let plan = try plan(usersFiles)
        for step in plan.steps {
            let source = folder.appendingPathComponent("source-\(step.index).sqlite").path
            do {
                let db = try Database(path: source, mode: .create)
                for sql in step.sourceLayout.tableSQL { try db.execute(sql) }
            }
            let db = try Database(path: ":memory:", mode: .create)
            for sql in step.destinationLayout.tableSQL { try db.execute(sql) }
            try db.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS src; ATTACH DATABASE ':memory:' AS work")
            try db.execute(WorkDatabase.creation)
            try SQLTranslator.registerValueFunction(on: db)
            let pushdown = try PushdownPlan.make(step, policy: { _ in nil }) { _ in ["source_id", "target_id"] }
            for create in pushdown.creates {
                let statements: [SQLInsert?] = [create.insert, create.fillKeys, create.associate, create.append]
                let queries: [SQLSelect?] = [create.count, create.passed, create.bound, create.nullKey, create.rejects, create.blobs,
                                             create.pairs, create.pairsOfEveryKey, create.linksSet]
                for sql in statements.compactMap({ $0?.sql }) + queries.compactMap({ $0?.sql }) {
                    XCTAssertNoThrow(try db.prepare(sql), sql)
                }
            }
            for relate in pushdown.relates.values.flatMap({ $0 }) {
                let statements = [relate.statement, relate.dense?.statement, relate.denseOwner?.statement, relate.denseOwner?.both]
                let pairs = [relate.ahead?.pairs, relate.ahead?.ranges?.pairs]
                for sql in statements.compactMap({ $0?.sql }) + pairs.compactMap({ $0?.sql }) {
                    XCTAssertNoThrow(try db.prepare(sql), sql)
                }
            }
        }
    }
}
