import Foundation

/// A two-version `Notes.xcdatamodeld` (n1, n2: the same `Note` entity) and an Xcode mapping
/// model `n1ToN2.xcmappingmodel` between them whose one entity mapping names the migration
/// policy class `App.NotePolicy` and sets attributes by value expressions: what the tests of
/// `FUNCTION($entityPolicy, …)` (running it, porting its class) start from.
public enum NotesMappingModel {
    /// Writes both into `folder`; `note` is the entity's XML, `expressions` attribute →
    /// value expression, in order.
    public static func write(in folder: URL, note: String, expressions: [(attribute: String, expression: String)]) throws
        -> (bundle: URL, mapping: URL) {
        let bundle = folder.appendingPathComponent("Notes.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("n1", ModelBundleFiles.model(note)), ("n2", ModelBundleFiles.model(note))])
        let mapping = folder.appendingPathComponent("n1ToN2.xcmappingmodel")
        try MappingModelXML(source: "App/Notes.xcdatamodeld/n1.xcdatamodel", destination: "App/Notes.xcdatamodeld/n2.xcdatamodel",
                            mappings: [.init("Note", type: "Custom", policyClass: "App.NotePolicy", autogenerate: false,
                                             attributes: expressions.map { .init($0.attribute, $0.expression) })]).write(to: mapping)
        return (bundle, mapping)
    }
}
