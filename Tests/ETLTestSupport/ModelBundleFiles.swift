import Foundation

/// A Core Data model bundle (`.xcdatamodeld`) of a test's own, written as Xcode lays it out:
/// one `<version>.xcdatamodel/contents` per version and `.xccurrentversion` naming the
/// current one.
///
///     try ModelBundleFiles.write(bundle, versions: [("v1", ModelBundleFiles.model(entities))], current: "v1")
public enum ModelBundleFiles {
    /// A model document as Xcode writes it, around `body` (the `<entity>` elements and the like).
    public static func model(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(body)
        </model>
        """
    }

    /// Writes each version's `contents` (a whole model document) into `bundle`, and, when
    /// `current` is given, the `.xccurrentversion` that makes it the bundle's current version.
    public static func write(_ bundle: URL, versions: [(name: String, contents: String)], current: String? = nil) throws {
        for version in versions {
            let folder = bundle.appendingPathComponent("\(version.name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(version.contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        if let current {
            try Data("""
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>
                """.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        }
    }
}
