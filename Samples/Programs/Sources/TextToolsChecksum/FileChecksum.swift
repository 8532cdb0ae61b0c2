import Crypto
public import Foundation

/// A file's SHA-256, read in blocks so that a file of any size takes a few pages of memory.
public enum FileChecksum {
    /// The size of each read.
    static let blockSize = 1 << 20

    /// The SHA-256 of everything `handle` reads from its offset to the end, in lowercase hex.
    public static func sha256(reading handle: FileHandle) throws -> String {
        var hasher = SHA256()
        while let block = try handle.read(upToCount: blockSize), !block.isEmpty {
            hasher.update(data: block)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of the file at `url`.
    public static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try sha256(reading: handle)
    }

    /// One line of a `sha256sum` file: the hash, two spaces, the name.
    public static func line(_ hash: String, name: String) -> String {
        "\(hash)  \(name)"
    }
}
