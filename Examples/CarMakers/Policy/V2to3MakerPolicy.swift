import ETL

/// CoreDataPlus's `V2to3MakerPolicy` (an `NSEntityMigrationPolicy` on the Car, SportCar and
/// LuxuryCar mappings of its `V2toV3.xcmappingmodel`), ported to an etl policy: each car's
/// `maker` string becomes a `Maker` row, one per name, linked as `Car.createdBy` ↔
/// `Maker.cars`.
///
/// The Core Data original calls `super` (the declared car), then finds or creates the Maker
/// of that name in the migration's context and adds the car to its `cars`. Here:
///
/// - `create` adds a Maker row with the name as its `uniqueKey`: the engine keeps one row per
///   key for all the step's mappings that make Makers (the find-or-create of the original,
///   whose lookup spans the whole migration too), in source order, checkpointed;
/// - `relate` links each car to the Maker made (or found) for its own source row. Setting
///   `createdBy` sets `Maker.cars` too: both sides share one storage.
///
/// Registered under the class's name, the mapping model's `migrationpolicyclassname`
/// (`REPLACE_AT_RUNTIME.V2to3MakerPolicy`) finds it.
public enum CarMakers {
    public static let policies: [String: Policy] = ["V2to3MakerPolicy": makerPolicy]

    public static let makerPolicy = Policy(
        creates: ["Maker"],
        create: { car, output in
            // `output` holds the car the mapping model declares (Core Data's `super`).
            guard let name = car.string("maker") else { return }
            output.insert("Maker", ["name": .string(name)], uniqueKey: .string(name))
        },
        relate: { row in
            // Maker rows need nothing: their `cars` are the cars' `createdBy`.
            guard row.entity != "Maker" else { return [:] }
            return ["createdBy": try row.destinations("\(row.mapping)/Maker", [row.source.key])]
        })
}
