/// A binary property list written object by object, so that a test can build what no
/// writer would: references shared many times, a UID or a trailer offset of any value, an
/// object that contains itself.
///
///     var plist = PropertyListBuilder()
///     let text = plist.string("x")
///     let top = plist.array([text, text])
///     let bytes = plist.bytes(top: top)
public struct PropertyListBuilder {
    public private(set) var objects: [[UInt8]] = []
    /// Bytes per object reference (1, 2, 4 or 8).
    public var referenceSize: Int

    public init(referenceSize: Int = 2) {
        self.referenceSize = referenceSize
    }

    /// Adds an object's bytes as they are; its index.
    @discardableResult
    public mutating func add(_ body: [UInt8]) -> Int {
        objects.append(body)
        return objects.count - 1
    }

    /// Reserves an index, for an object that must refer to itself or to later ones.
    public mutating func reserve() -> Int { add([]) }

    public mutating func set(_ index: Int, _ body: [UInt8]) { objects[index] = body }

    public mutating func string(_ text: String) -> Int {
        add(Self.marker(0x50, text.utf8.count) + Array(text.utf8))
    }

    public mutating func integer(_ value: Int64) -> Int {
        add([0x13] + Self.bigEndian(UInt64(bitPattern: value), 8))
    }

    /// A UID of `size` bytes (1 to 16, as the marker allows).
    public mutating func uid(_ value: UInt64, size: Int = 8) -> Int {
        add([0x80 | UInt8(size - 1)] + Self.bigEndian(value, size))
    }

    public func arrayBody(_ references: [Int]) -> [UInt8] {
        Self.marker(0xA0, references.count) + references.flatMap { Self.bigEndian(UInt64($0), referenceSize) }
    }

    public mutating func array(_ references: [Int]) -> Int { add(arrayBody(references)) }

    public func dictionaryBody(_ pairs: [(key: Int, value: Int)]) -> [UInt8] {
        Self.marker(0xD0, pairs.count) + (pairs.map(\.key) + pairs.map(\.value)).flatMap { Self.bigEndian(UInt64($0), referenceSize) }
    }

    public mutating func dictionary(_ pairs: [(key: Int, value: Int)]) -> Int { add(dictionaryBody(pairs)) }

    /// The file: header, objects, an offset table of 8-byte offsets, the trailer (whose
    /// offset-table position may be given, to point it anywhere).
    public func bytes(top: Int, offsetTable: UInt64? = nil) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += Self.bigEndian(UInt64(offset), 8) }
        bytes += [0, 0, 0, 0, 0, 0, 8, UInt8(referenceSize)]
        bytes += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8) + Self.bigEndian(offsetTable ?? UInt64(table), 8)
        return bytes
    }

    /// A keyed archive (`NSKeyedArchiver`'s top dictionary) around objects already added
    /// as `$objects` (by index, in order, the first of which should be the string `$null`).
    public mutating func keyedArchive(objects members: [Int], root: Int) -> [UInt8] {
        let rootUID = uid(UInt64(root), size: 1)
        let top = dictionary([(string("root"), rootUID)])
        let all = array(members)
        let archive = dictionary([(string("$archiver"), string("NSKeyedArchiver")), (string("$version"), integer(100000)),
                                  (string("$top"), top), (string("$objects"), all)])
        return bytes(top: archive)
    }

    public static func marker(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type | UInt8(count)] : [type | 0x0F, 0x13] + bigEndian(UInt64(count), 8)
    }

    public static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { i in
            let shift = 8 * (size - 1 - i)
            return shift >= 64 ? 0 : UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }
}
