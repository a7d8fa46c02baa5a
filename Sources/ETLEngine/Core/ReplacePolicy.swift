/// What to do with a destination file that already exists.
public enum ReplacePolicy: Sendable {
    /// Refuse before doing any work.
    case refuse
    /// Keep the previous file as `NAME.bak`.
    case backup
    /// Replace it.
    case force
}
