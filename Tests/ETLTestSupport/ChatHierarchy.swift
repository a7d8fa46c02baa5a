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
        try MappingModelXML(source: "App/Chat.xcdatamodeld/h1.xcdatamodel", destination: "App/Chat.xcdatamodeld/h2.xcdatamodel",
                            mappings: entityMappings.map { entity, attribute, relationships in
                                .init(entity, attributes: [.init(attribute)], relationships: relationships.map { .init($0) })
                            }).write(to: url)
    }
}
