/// The engine's version, part of every checkpoint's `RunIdentity`: raised whenever the same
/// pipeline may be run another way (rows made, numbered, ordered or rejected differently), so
/// that a checkpoint is never continued by an engine that would make its rows differently.
/// What each version changed is in git's history of this file.
public enum ETLVersion { public static let current = "0.5.0" }
