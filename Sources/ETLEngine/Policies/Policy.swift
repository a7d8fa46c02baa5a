import ETLPipeline
import ETLExpression
import ETLModel
import ETLCoreData

/// Custom logic for an entity mapping, as named Swift closures: Core Data's
/// `NSEntityMigrationPolicy`, without the class. Every hook is optional; a missing hook
/// does what the declared mapping says (like calling `super`).
///
///     let sections = Policy(creates: ["Section"]) { row, output in
///         let content = row.string("content") ?? ""
///         output.insert("Section", ["title": .string(String(content.prefix(20)) + "…"), "body": .string(content)])
///     }
///
/// Hooks run concurrently on the worker queues (or on the writer's connection, when SQLite
/// calls the create hook from the mapping's insert: `PolicyInSQLite`), any number at a
/// time, in no particular
/// order: they must not share mutable state. What is ordered: rows are *loaded* in source
/// order, so keys, deduplication (`PolicyOutput.Row.uniqueKey`) and the result are the same
/// with 1 or N workers.
public struct Policy: Sendable {
    /// Per source row, after the declared filter passed: `output` holds the row the declared
    /// attributes make; change it, remove it, or add rows (of the mapping's entity or of an
    /// entity named in `creates`). A throw rejects the source row.
    public typealias Create = @Sendable (PolicySourceRow, inout PolicyOutput) throws -> Void
    /// Once per mapping, when the pipeline is planned: resolves the fields the returned
    /// create closure reads (`plan.source`) and writes (`plan.attribute`), which then runs per
    /// source row like `create`, reading and writing by position instead of by name.
    public typealias Prepare = @Sendable (PolicyPlan) throws -> Create
    /// Per destination row the mapping made: links to set, by relationship name, on top of
    /// the declared relationship expressions. A throw rejects the row's links.
    public typealias Relate = @Sendable (PolicyRelateContext) throws -> [String: [Int64]]
    /// Once, after the mapping created all its rows: rows that depend on the whole mapping.
    public typealias EndOfMapping = @Sendable (PolicyMappingContext) throws -> [PolicyOutput.Row]
    /// After the built-in validation of the step: one message per problem found.
    public typealias Validate = @Sendable (PolicyValidationContext) throws -> [String]

    /// Destination entities besides the mapping's own that `create` may insert rows of.
    /// Their rows are found with `destination('Mapping/Entity', …)`.
    public var creates: [String]
    public var create: Create?
    /// Used instead of `create` when set.
    public var prepare: Prepare?
    public var relate: Relate?
    public var endOfMapping: EndOfMapping?
    public var validate: Validate?
    /// Functions a mapping model's value expressions call on the policy class,
    /// `FUNCTION($entityPolicy, "selector:", …)`, by selector: called as the expression
    /// function `Policy_selector_(…)` (`MappingModelImport.policyFunctionName`).
    public var functions: [String: ExpressionFunction] = [:]

    public init(creates: [String] = [], create: Create? = nil, relate: Relate? = nil,
                endOfMapping: EndOfMapping? = nil, validate: Validate? = nil, functions: [String: ExpressionFunction] = [:]) {
        self.creates = creates
        self.create = create
        self.relate = relate
        self.endOfMapping = endOfMapping
        self.validate = validate
        self.functions = functions
    }

    /// A policy whose create closure works with fields resolved once per mapping:
    ///
    ///     let books = Policy(prepare: { plan in
    ///         let (source, title) = (try plan.source("title", as: String.self), try plan.attribute("title", as: String.self))
    ///         return { book, output in output[title] = book[source]?.uppercased() }
    ///     })
    public init(creates: [String] = [], prepare: @escaping Prepare, relate: Relate? = nil,
                endOfMapping: EndOfMapping? = nil, validate: Validate? = nil, functions: [String: ExpressionFunction] = [:]) {
        self.init(creates: creates, relate: relate, endOfMapping: endOfMapping, validate: validate, functions: functions)
        self.prepare = prepare
    }

    var signature: (String) -> PolicySignature {
        { PolicySignature(name: $0, creates: creates) }
    }
}

/// Policies by name, as pipelines name them.
public struct PolicyRegistry: Sendable {
    public var policies: [String: Policy]
    private var programFunctions: [String: ExpressionFunction]

    /// Functions added to the expression language (a built-in's name is not available): the
    /// program's own, and each policy's by selector, named `Policy_selector_`.
    public var functions: [String: ExpressionFunction] {
        get {
            var all = programFunctions
            for (name, policy) in policies {
                for (selector, function) in policy.functions {
                    all[MappingModelImport.policyFunctionName(policy: name, selector: selector)] = function
                }
            }
            return all
        }
        set { programFunctions = newValue }
    }

    public init(_ policies: [String: Policy] = [:], functions: [String: ExpressionFunction] = [:]) {
        for name in functions.keys {
            precondition(!ExpressionFunction.builtinNames.contains(name), "the function '\(name)' would be hidden by the built-in of that name: rename it")
        }
        self.policies = policies
        self.programFunctions = functions
    }

    public subscript(name: String) -> Policy? { policies[name] }

    public var signatures: [PolicySignature] {
        policies.map { $0.value.signature($0.key) }.sorted { $0.name < $1.name }
    }
}
