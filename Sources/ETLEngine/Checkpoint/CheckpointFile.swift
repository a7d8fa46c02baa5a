import Foundation
import ETLStore

/// The checkpoint on disk: JSON, zstd-compressed with a frame checksum, written to a
/// temporary file, fsynced, and renamed over the previous one — so the file is always
/// either the old checkpoint or the new one, and a damaged one is detected, never trusted.
public struct CheckpointFile: Sendable {
    public let path: String

    public init(destination: String) {
        path = destination + ".etl-checkpoint"
    }

    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    public func read() throws -> Checkpoint? {
        // Read as a file etl made: a planted link or FIFO is refused, not followed or waited on.
        let found: Data?
        do { found = try OwnFile.read(path, limit: 64 << 20) } catch let failure as OwnFile.Failure {
            throw MigrationError.badCheckpoint(path: path, reason: failure.description)
        }
        guard let data = found else { return nil }
        let json: [UInt8]
        do {
            json = try Zstd.decompress(Array(data), limit: 64 << 20)
        } catch {
            throw MigrationError.badCheckpoint(path: path, reason: "it is damaged or truncated (\(error))")
        }
        do {
            let checkpoint = try JSONDecoder.checkpoint.decode(Checkpoint.self, from: Data(json))
            guard checkpoint.format == Checkpoint.formatVersion else {
                throw MigrationError.badCheckpoint(path: path, reason: "it has format \(checkpoint.format); this etl reads format \(Checkpoint.formatVersion)")
            }
            return checkpoint
        } catch let error as MigrationError {
            throw error
        } catch let unreadable as Checkpoint.Position.Unreadable {
            throw MigrationError.badCheckpoint(path: path, reason: unreadable.reason)
        } catch {
            throw MigrationError.badCheckpoint(path: path, reason: "it does not hold a checkpoint (\(error))")
        }
    }

    /// - Parameter durable: fsync the file before the rename. A checkpoint older than the
    ///   rows is always safe to resume from (see `Checkpoint`), so between stages the
    ///   engine asks for durability and per chunk only for the atomic rename.
    public func write(_ checkpoint: Checkpoint, durable: Bool) throws {
        let json = try CheckpointJSON.bytes(checkpoint) ?? Array(JSONEncoder.checkpoint.encode(checkpoint))
        let frame = try Zstd.compress(json)
        // Made afresh beside it (`AtomicFile`), never through what was planted there; the
        // rename then replaces a planted link at `path` itself, never what it points at.
        do {
            try AtomicFile.write(frame, to: path, durable: durable)
        } catch {
            throw MigrationError.badDestination(path: error.path, reason: "cannot write the checkpoint: \(error.reason)")
        }
    }

    public func remove() {
        WorkArea.remove(path)
        WorkArea.remove(path + ".tmp")
    }
}

extension JSONEncoder {
    static var checkpoint: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var checkpoint: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
