import Foundation
import ETLStore
import ETLModel

/// Writes a model version as Xcode's model XML (`Foo.xcdatamodel/contents`): the form a team
/// puts back into its bundle, for a model read from a store's `Z_MODELCACHE`
/// (`etl model from-store --xcdatamodel`).
///
///     try XCDataModelWriter.xml(model).write(toFile: "Model 7.xcdatamodel/contents", …)
///
/// It writes what `XCDataModelReader` reads, so that reading it back gives the same model
/// (and the same version hashes): entities in name order, each with its own attributes and
/// relationships in name order, then its fetch indexes and uniqueness constraints.
/// `Model` has no delete rules: relationships are written `deletionRule="Nullify"`, Xcode's
/// default, which a team sets again where its app cascades (delete rules are not hashed).
///
/// Names come from a store nobody vouches for: every one is written escaped (markup,
/// controls, bidirectional controls and line separators as character references), and a
/// model holding a character XML 1.0 cannot hold at all (NUL, most C0 controls, U+FFFE,
/// U+FFFF) is refused, naming where (`Unwritable`), rather than written into a file no XML
/// reader takes.
public enum XCDataModelWriter {
    /// A name or value of the model that XML 1.0 cannot hold, even as a character reference.
    public struct Unwritable: Error, CustomStringConvertible, Equatable {
        public var place: String
        public var scalar: UInt32
        public var description: String {
            "\(place) holds the character U+\(String(format: "%04X", scalar)), which XML 1.0 cannot hold: "
                + "the model cannot be written as Xcode's XML (rename it in the app's model, or write it as JSON without --xcdatamodel)"
        }
    }

    public static func xml(_ model: Model) throws -> String {
        try check(model)
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        var root = #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift""#
        // Xcode's model has one identifier (`""` when the field is empty) or none.
        if let identifier = model.versionIdentifiers.sorted(by: { $0.count > $1.count }).first {
            root += " userDefinedModelVersionIdentifier=\(quote(identifier))"
        }
        lines.append(root + ">")
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            var tag = "    <entity name=\(quote(entity.name)) representedClassName=\(quote(entity.name))"
            if let parent = entity.parent { tag += " parentEntity=\(quote(parent))" }
            if entity.isAbstract { tag += #" isAbstract="YES""# }
            if let renamed = entity.renamingIdentifier { tag += " elementID=\(quote(renamed))" }
            if let modifier = entity.versionHashModifier { tag += " versionHashModifier=\(quote(modifier))" }
            lines.append(tag + #" syncable="YES">"#)
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) {
                lines.append("        " + self.attribute(attribute))
            }
            for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) {
                lines.append("        " + self.relationship(relationship))
            }
            for index in entity.fetchIndexes {
                lines.append("        <fetchIndex name=\(quote(index.name))>")
                for element in index.elements {
                    lines.append("            <fetchIndexElement property=\(quote(element.property)) type=\"Binary\" order=\"\(element.isAscending ? "ascending" : "descending")\"/>")
                }
                lines.append("        </fetchIndex>")
            }
            if !entity.uniquenessConstraints.isEmpty {
                lines.append("        <uniquenessConstraints>")
                for constraint in entity.uniquenessConstraints {
                    lines.append("            <uniquenessConstraint>")
                    lines += constraint.map { "                <constraint value=\(quote($0))/>" }
                    lines.append("            </uniquenessConstraint>")
                }
                lines.append("        </uniquenessConstraints>")
            }
            lines.append("    </entity>")
        }
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The names model files use for attribute types ("Integer 16"…).
    static func typeName(_ type: AttributeType) -> String {
        XCDataModelReader.attributeTypes.first { $0.value == type }!.key
    }

    private static func attribute(_ a: Attribute) -> String {
        var tag = "<attribute name=\(quote(a.name))"
        if a.isOptional { tag += #" optional="YES""# }
        tag += " attributeType=\(quote(typeName(a.type)))"
        switch a.defaultValue {
        case .real(let seconds)? where a.type == .date:
            tag += " defaultDateTimeInterval=\(quote(number(seconds - 978_307_200)))"
        case .integer(let i)? where a.type == .boolean:
            tag += " defaultValueString=\(quote(i == 0 ? "NO" : "YES"))"
        case .integer(let i)?:
            tag += " defaultValueString=\(quote(String(i)))"
        case .real(let d)?:
            tag += " defaultValueString=\(quote(number(d)))"
        case .text(let s)?:
            tag += " defaultValueString=\(quote(s))"
        case .blob?, .null?, nil:
            break
        }
        if let derivation = a.derivation { tag += #" derived="YES" derivationExpression="# + quote(derivation) }
        if a.allowsExternalBinaryDataStorage { tag += #" allowsExternalBinaryDataStorage="YES""# }
        if a.preservesValueInHistoryOnDeletion { tag += #" preserveAfterDeletion="YES""# }
        if let renamed = a.renamingIdentifier { tag += " elementID=\(quote(renamed))" }
        if let modifier = a.versionHashModifier { tag += " versionHashModifier=\(quote(modifier))" }
        return tag + "/>"
    }

    private static func relationship(_ r: Relationship) -> String {
        var tag = "<relationship name=\(quote(r.name))"
        if r.isOptional { tag += #" optional="YES""# }
        if r.isToMany { tag += #" toMany="YES""# }
        if let min = r.minCount { tag += " minCount=\"\(min)\"" }
        if let max = r.maxCount { tag += " maxCount=\"\(max)\"" } else if !r.isToMany { tag += #" maxCount="1""# }
        tag += #" deletionRule="Nullify""#
        if r.isOrdered { tag += #" ordered="YES""# }
        tag += " destinationEntity=\(quote(r.destination))"
        if let inverse = r.inverse { tag += " inverseName=\(quote(inverse)) inverseEntity=\(quote(r.destination))" }
        if let renamed = r.renamingIdentifier { tag += " elementID=\(quote(renamed))" }
        if let modifier = r.versionHashModifier { tag += " versionHashModifier=\(quote(modifier))" }
        return tag + "/>"
    }

    /// A real as Xcode writes it: "0", "1.5".
    private static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// An XML attribute value, quoted and escaped (a newline kept as a newline; controls,
    /// format characters and separators as references, so that they show).
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned:
                    out += "&#x\(String(scalar.value, radix: 16, uppercase: true));"
                default:
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Whether XML 1.0 can hold the scalar (its `Char` production), as text or a reference.
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Refuses a model with a character XML cannot hold in anything the writer copies.
    static func check(_ model: Model) throws {
        func text(_ value: String?, _ place: @autoclosure () -> String) throws {
            guard let value, let bad = value.unicodeScalars.first(where: { !isXMLCharacter($0) }) else { return }
            throw Unwritable(place: place(), scalar: bad.value)
        }
        // Places name what holds the character with it escaped, as the XML would show it.
        let shown = { (name: String) in String(quote(name).dropFirst().dropLast()) }
        for identifier in model.versionIdentifiers { try text(identifier, "the model's version identifier \(shown(identifier))") }
        for entity in model.entities {
            let place = "entity \(shown(entity.name))"
            try text(entity.name, "\(place): its name")
            try text(entity.parent, "\(place): its parent's name")
            try text(entity.renamingIdentifier, "\(place): its renaming identifier")
            try text(entity.versionHashModifier, "\(place): its version hash modifier")
            for a in entity.attributes {
                let here = "attribute \(shown(entity.name)).\(shown(a.name))"
                try text(a.name, "\(here): its name")
                try text(a.renamingIdentifier, "\(here): its renaming identifier")
                try text(a.versionHashModifier, "\(here): its version hash modifier")
                if case .text(let value)? = a.defaultValue { try text(value, "\(here): its default value") }
                try text(a.derivation, "\(here): its derivation")
            }
            for r in entity.relationships {
                let here = "relationship \(shown(entity.name)).\(shown(r.name))"
                try text(r.name, "\(here): its name")
                try text(r.destination, "\(here): its destination")
                try text(r.inverse, "\(here): its inverse")
                try text(r.renamingIdentifier, "\(here): its renaming identifier")
                try text(r.versionHashModifier, "\(here): its version hash modifier")
            }
            for index in entity.fetchIndexes {
                try text(index.name, "\(place): a fetch index's name")
                for element in index.elements { try text(element.property, "\(place): fetch index \(shown(index.name))") }
            }
            for name in entity.uniquenessConstraints.joined() { try text(name, "\(place): a uniqueness constraint") }
        }
    }
}
