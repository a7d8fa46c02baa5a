/// The engine's version, part of every checkpoint's `RunIdentity`: raised whenever the same
/// pipeline may be run another way, so that a checkpoint is never continued by an engine
/// that would make its rows differently. 0.2.0: a policy making one row per source row is
/// called by SQLite (`PolicyInSQLite`) where 0.1.0 made its rows row by row. 0.3.0: adjacent
/// steps run as one where they can (`StepFusion`), where 0.2.0 wrote the store between.
/// 0.4.0: a step's rows are created in `StepPlan.createOrder` (a uniqueBy mapping nothing
/// else reads last), where 0.3.0 created them in the plan's order: a 0.3.0 checkpoint in
/// such a mapping would call the mappings after it done, and their rows would be lost.
/// 0.5.0: why a step started over row by row is kept typed (`StepLessons`), where 0.4.0
/// kept text: a 0.4.0 checkpoint of a step that had started over would resume inside SQLite.
/// Also: a new Core Data store is laid out as Core Data lays it out (entities numbered in
/// case-insensitive name order, join tables named by entity name order, §1.3 column digits,
/// derived-count triggers), a Core Data step keeps `Z_OPT` and `Z_FOK_`, and a pass-through
/// marker whose file is missing is carried instead of rejected: a 0.4.0 checkpoint's work
/// (an intermediate store under other names, rows rejected that are now carried) would be
/// continued differently.
public enum ETLVersion { public static let current = "0.5.0" }
