import ETLModel
import ETLCoreData

/// The model a Core Data store keeps (`Z_MODELCACHE.Z_CONTENT`) is untrusted bytes: read,
/// hashed and written as XML, each must end in a value or an error that describes itself,
/// within the reader's bounds (`ModelCache.Bounds`) and in time (`make fuzz-keptmodels`
/// runs it with a 2 s limit per input).
extension FuzzSupport {
    /// `bytes` as the inflated archive (wrapped in raw deflate's stored blocks, as the reader
    /// inflates them) and, once, as the deflated column itself.
    public static func keptModel(_ bytes: [UInt8]) {
        for content in [storedDeflate(bytes), bytes] {
            do {
                let model = try ModelCache.model(content: content, version: "fuzz", store: "fuzz.sqlite")
                _ = try? VersionHashes(model: model)
                _ = try? XCDataModelWriter.xml(model)
                for entity in model.entities.prefix(50) {
                    _ = model.attributes(of: entity.name)
                    _ = model.descendants(of: entity.name)
                }
            } catch {
                check(error)
            }
        }
    }

    /// Raw deflate (no header) of stored blocks of at most 65,535 bytes.
    static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + 65_535, bytes.count)
            let length = UInt16(end - start)
            output.append(end == bytes.count ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.count
        return output
    }
}
