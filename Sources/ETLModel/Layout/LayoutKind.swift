/// The layouts a pipeline can name.
public enum LayoutKind: String, Sendable, CaseIterable {
    case plain
    /// Core Data's SQLite layout (`Z<ENTITY>` tables, `Z_PRIMARYKEY`, `Z_METADATA`).
    case coredata
}
