/// Writes an object graph as `NSKeyedArchiver` does, without Apple's classes: the binary
/// property list `{ $archiver: "NSKeyedArchiver", $version: 100000, $top: { root: UID },
/// $objects: [...] }` that `KeyedArchive` and `ArchiveGraph` read (see `KeyedArchive` for
/// the format).
///
///     var archiver = KeyedArchiver()
///     let root = archiver.reserve()
///     archiver.fill(root, "NSManagedObjectModel", ["NSEntities": archiver.array([], "NSArray")])
///     let bytes = try archiver.encoded(root: root)
///
/// An object's slot can be reserved before its fields are known, so that objects can point
/// at each other (a Core Data model: an entity lists its properties, each names its entity).
/// Strings are written once however often they are used; class descriptions once per class.
/// The same calls give the same bytes.
struct KeyedArchiver {
    typealias UID = BinaryPropertyList.UID

    /// `$objects[0]`, which stands for nil.
    static let null = UID(index: 0)

    private var objects: [Any] = ["$null"]
    private var strings: [String: UID] = [:]
    private var classes: [String: UID] = [:]

    /// The superclasses `NSKeyedArchiver` lists for the classes a model archive uses.
    static let superclasses: [String: [String]] = [
        "NSArray": [], "NSMutableArray": ["NSArray"], "NSSet": [], "NSMutableSet": ["NSSet"],
        "NSDictionary": [], "NSMutableDictionary": ["NSDictionary"], "NSDate": [],
        "NSKnownKeysDictionary1": ["NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"],
        "NSKnownKeysMappingStrategy1": ["NSKnownKeysMappingStrategy"],
        "NSManagedObjectModel": [], "NSEntityDescription": [],
        "NSAttributeDescription": ["NSPropertyDescription"],
        "NSDerivedAttributeDescription": ["NSAttributeDescription", "NSPropertyDescription"],
        "NSRelationshipDescription": ["NSPropertyDescription"],
        "NSFetchIndexDescription": [], "NSFetchIndexElementDescription": [],
        "NSConstantValueExpression": ["NSExpression"], "NSSelfExpression": ["NSExpression"],
        "NSFunctionExpression": ["NSExpression"], "NSKeyPathExpression": ["NSFunctionExpression", "NSExpression"],
        "NSKeyPathSpecifierExpression": ["NSExpression"],
    ]

    /// A slot for an object, filled later with `fill`.
    mutating func reserve() -> UID {
        objects.append("$null")
        return UID(index: objects.count - 1)
    }

    /// Puts an object of `className` with `fields` (UIDs, integers, booleans, strings) into its slot.
    mutating func fill(_ slot: UID, _ className: String, _ fields: [String: Any]) {
        var fields = fields
        fields["$class"] = classDescription(className)
        objects[slot.index] = fields
    }

    /// A new object of `className` with `fields`.
    mutating func object(_ className: String, _ fields: [String: Any]) -> UID {
        let slot = reserve()
        fill(slot, className, fields)
        return slot
    }

    /// A string, written once.
    mutating func string(_ text: String) -> UID {
        if let uid = strings[text] { return uid }
        objects.append(text)
        let uid = UID(index: objects.count - 1)
        strings[text] = uid
        return uid
    }

    /// A string, or `$null` for nil.
    mutating func string(_ text: String?) -> UID { text.map { string($0) } ?? Self.null }

    /// An NSArray (NSSet, …) of `elements`.
    mutating func array(_ elements: [UID], _ className: String) -> UID {
        object(className, ["NS.objects": elements])
    }

    /// An NSDictionary (NSMutableDictionary) of `keys` to `values`, in the order given.
    mutating func dictionary(_ keys: [UID], _ values: [UID], _ className: String) -> UID {
        object(className, ["NS.keys": keys, "NS.objects": values])
    }

    private mutating func classDescription(_ className: String) -> UID {
        if let uid = classes[className] { return uid }
        objects.append(["$classname": className, "$classes": [className] + (Self.superclasses[className] ?? []) + ["NSObject"]])
        let uid = UID(index: objects.count - 1)
        classes[className] = uid
        return uid
    }

    /// The archive's bytes, `root` its top object.
    func encoded(root: UID) throws -> [UInt8] {
        let archive: [String: Any] = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000,
            "$top": ["root": root], "$objects": objects,
        ]
        return Array(try BinaryPropertyList.encode(archive))
    }
}
