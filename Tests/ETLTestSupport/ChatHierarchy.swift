import Foundation

/// Two entity hierarchies and what links them, as the tests of relationships into
/// hierarchies use them: `Discussion` (Forum, Thread) with `messages`, `Message` (Sent,
/// Received) with `discussion` and the many-to-many `tags` ↔ `Tag.messages` (Tag: Label,
/// Topic), and `Note.about` → Discussion; versions differ by `extra` in Message. With the
/// mapping model Xcode writes between two of them (`h1` → `h2`).
public enum ChatHierarchy {
    public static func model(_ extra: String) -> String {
        ModelBundleFiles.model("""
            <entity name="Discussion" isAbstract="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="messages" optional="YES" toMany="YES" destinationEntity="Message" inverseName="discussion"/>
                <relationship name="notes" optional="YES" toMany="YES" destinationEntity="Note" inverseName="about"/>
            </entity>
            <entity name="Forum" parentEntity="Discussion"/>
            <entity name="Thread" parentEntity="Discussion"/>
            <entity name="Message" isAbstract="YES">
                <attribute name="text" optional="YES" attributeType="String"/>\(extra)
                <relationship name="discussion" optional="YES" maxCount="1" destinationEntity="Discussion" inverseName="messages"/>
                <relationship name="tags" optional="YES" toMany="YES" destinationEntity="Tag" inverseName="messages"/>
            </entity>
            <entity name="Sent" parentEntity="Message"/>
            <entity name="Received" parentEntity="Message"/>
            <entity name="Tag" isAbstract="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="messages" optional="YES" toMany="YES" destinationEntity="Message" inverseName="tags"/>
            </entity>
            <entity name="Label" parentEntity="Tag"/>
            <entity name="Topic" parentEntity="Tag"/>
            <entity name="Note">
                <attribute name="body" optional="YES" attributeType="String"/>
                <relationship name="about" optional="YES" maxCount="1" destinationEntity="Discussion" inverseName="notes"/>
            </entity>
            """)
    }

    /// Each entity mapping of the mapping model: its entity (same in both versions), its
    /// attribute, and the relationships it sets.
    public static let entityMappings = [("Forum", "title", ["messages"]), ("Thread", "title", ["messages"]),
                                        ("Sent", "text", ["tags"]), ("Received", "text", ["tags"]),
                                        ("Label", "name", ["messages"]), ("Topic", "name", ["messages"]), ("Note", "body", ["about"])]

    /// The mapping model Xcode would write for h1 → h2, relationships auto-generated: the
    /// messages' mappings leave `discussion` out, so `Discussion.messages` is set from the
    /// discussions' side, by rows of both message mappings.
    public static func writeMappingModel(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var objects = "", ids: [String] = []
        for (index, (entity, attribute, relationships)) in entityMappings.enumerated() {
            ids.append("e\(index)")
            let relationshipIDs = relationships.indices.map { "r\(index)_\($0)" }
            objects += """
                <object type="XDDEVENTITYMAPPING" id="e\(index)">
                  <attribute name="sourcename" type="string">\(entity)</attribute>
                  <attribute name="destinationname" type="string">\(entity)</attribute>
                  <attribute name="mappingtypename" type="string">Undefined</attribute>
                  <attribute name="mappingnumber" type="int16">\(index + 1)</attribute>
                  <attribute name="autogenerateexpression" type="bool">1</attribute>
                  <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="a\(index)"></relationship>
                  <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="\(relationshipIDs.joined(separator: " "))"></relationship>
                </object>
                <object type="XDDEVATTRIBUTEMAPPING" id="a\(index)">
                  <attribute name="name" type="string">\(attribute)</attribute>
                  <attribute name="autogenerateexpression" type="bool">1</attribute>
                </object>

                """
            for (id, relationship) in zip(relationshipIDs, relationships) {
                objects += """
                    <object type="XDDEVRELATIONSHIPMAPPING" id="\(id)">
                      <attribute name="name" type="string">\(relationship)</attribute>
                      <attribute name="autogenerateexpression" type="bool">1</attribute>
                    </object>

                    """
            }
        }
        try """
            <?xml version="1.0" standalone="no"?>
            <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
              <attribute name="sourcemodelpath" type="string">App/Chat.xcdatamodeld/h1.xcdatamodel</attribute>
              <attribute name="destinationmodelpath" type="string">App/Chat.xcdatamodeld/h2.xcdatamodel</attribute>
              <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="\(ids.joined(separator: " "))"></relationship>
            </object>
            \(objects)
            </database>
            """.write(to: url.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
    }
}
