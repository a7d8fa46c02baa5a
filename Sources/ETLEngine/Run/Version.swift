public enum ETLVersion { public static let current = "0.1.0" }
