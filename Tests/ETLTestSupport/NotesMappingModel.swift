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
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        let ids = expressions.indices.map { "z\($0 + 3)" }
        let attributeMappings = zip(ids, expressions).map { id, assignment in
            """
            <object type="XDDEVATTRIBUTEMAPPING" id="\(id)">
              <attribute name="name" type="string">\(assignment.attribute)</attribute>
              <attribute name="valueexpressionstring" type="string">\(assignment.expression)</attribute>
            </object>
            """
        }.joined(separator: "\n")
        try """
            <?xml version="1.0" standalone="no"?>
            <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
              <attribute name="sourcemodelpath" type="string">App/Notes.xcdatamodeld/n1.xcdatamodel</attribute>
              <attribute name="destinationmodelpath" type="string">App/Notes.xcdatamodeld/n2.xcdatamodel</attribute>
              <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship>
            </object>
            <object type="XDDEVENTITYMAPPING" id="z2">
              <attribute name="sourcename" type="string">Note</attribute>
              <attribute name="destinationname" type="string">Note</attribute>
              <attribute name="mappingtypename" type="string">Custom</attribute>
              <attribute name="mappingnumber" type="int16">1</attribute>
              <attribute name="migrationpolicyclassname" type="string">App.NotePolicy</attribute>
              <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="\(ids.joined(separator: " "))"></relationship>
            </object>
            \(attributeMappings)
            </database>
            """.write(to: mapping.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        return (bundle, mapping)
    }
}
