import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// The zip of a folder that a read `forUploading` hands over is one that another
/// implementation, Python's `zipfile`, reads whole: every entry under the folder's name, each
/// file's bytes with a CRC that checks, links as links, modes kept; and what no zip should
/// hold stops it with the path.
@Suite(.timeLimit(.minutes(1))) final class FolderZipTests {
    let scratch: TemporaryDirectory
    let source: URL
    let limits = FolderCopy.Limits(files: 100, depth: 4, bytes: 4 << 20)

    init() throws {
        scratch = try TemporaryDirectory()
        source = scratch.url.appendingPathComponent("Notes.package")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    }

    @Test func theChecksumIsTheStandardOne() {
        var crc = CRC32()
        crc.update(Array("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)
        var split = CRC32()
        split.update(Array("1234".utf8))
        split.update(Array("56789".utf8))
        #expect(split == crc)
        #expect(CRC32().value == 0)
    }

    @Test func aTreeIsZippedUnderItsNameAsAnotherZipReaderReadsIt() throws {
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        try FileManager.default.createDirectory(at: source.appendingPathComponent("Data/Empty"), withIntermediateDirectories: true)
        try Data("alpha".utf8).write(to: source.appendingPathComponent("index.txt"))
        try Data(large).write(to: source.appendingPathComponent("Data/blob.bin"))
        try Data().write(to: source.appendingPathComponent("Data/none"))
        try Data("#!/bin/sh\n".utf8).write(to: source.appendingPathComponent("run"))
        chmod(source.appendingPathComponent("run").path, 0o755)
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("latest").path, withDestinationPath: "index.txt")
        let zip = try write()
        let listing = try Self.read(zip)
        #expect(listing.checked, "every CRC checks")
        #expect(listing.entries.map(\.name) == [
            "Notes.package/", "Notes.package/Data/", "Notes.package/Data/Empty/", "Notes.package/Data/blob.bin",
            "Notes.package/Data/none", "Notes.package/index.txt", "Notes.package/latest", "Notes.package/run",
        ])
        let byName = Dictionary(uniqueKeysWithValues: listing.entries.map { ($0.name, $0) })
        #expect(byName["Notes.package/index.txt"]?.contents == Data("alpha".utf8))
        #expect(byName["Notes.package/Data/blob.bin"]?.contents == Data(large))
        #expect(byName["Notes.package/Data/none"]?.contents == Data())
        #expect(byName["Notes.package/latest"]?.contents == Data("index.txt".utf8))
        #expect(byName["Notes.package/latest"].map { $0.mode & S_IFMT } == S_IFLNK)
        #expect(byName["Notes.package/run"].map { $0.mode & 0o777 } == 0o755)
        #expect(byName["Notes.package/Data/"].map { $0.mode & S_IFMT } == S_IFDIR)
    }

    @Test func aFIFOInsideStopsTheZipWithItsPathAndIsNotOpened() throws {
        #expect(mkfifo(source.appendingPathComponent("pipe").path, 0o600) == 0)
        let error = failure { _ = try write() }
        #expect(error?.errno == EINVAL)
        #expect(error?.description.contains("Notes.package/pipe") == true, "\(String(describing: error))")
    }

    @Test func pastTheLimitsTheZipStopsWithWhatItPassed() throws {
        for index in 0..<5 { try Data("\(index)".utf8).write(to: source.appendingPathComponent("file-\(index)")) }
        let files = failure { _ = try write(FolderCopy.Limits(files: 3, depth: 4, bytes: 1 << 20)) }
        #expect(files?.errno == EFBIG)
        #expect(files?.description.contains("at most 3 entries") == true, "\(String(describing: files))")
        let bytes = failure { _ = try write(FolderCopy.Limits(files: 100, depth: 4, bytes: 3)) }
        #expect(bytes?.errno == EFBIG)
        try FileManager.default.createDirectory(at: source.appendingPathComponent("a/b/c"), withIntermediateDirectories: true)
        let depth = failure { _ = try write(FolderCopy.Limits(files: 100, depth: 1, bytes: 1 << 20)) }
        #expect(depth?.errno == ELOOP)
    }

    // MARK: Helpers

    func write(_ limits: FolderCopy.Limits? = nil) throws -> URL {
        let zip = scratch.url.appendingPathComponent("Notes.package-\(UUID().uuidString).zip")
        let output = try FileDescriptor.open(zip.path, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer { output.close() }
        let folder = try ConfinedFolder(source.path)
        defer { folder.close() }
        try FolderZip(limits: limits ?? self.limits).write(folder, as: "Notes.package", to: output)
        return zip
    }

    struct Listing: Decodable {
        struct Entry: Decodable {
            var name: String
            var mode: UInt32
            var base64: String
            var contents: Data? { Data(base64Encoded: base64) }
        }
        var checked: Bool
        var entries: [Entry]
    }

    /// The archive as Python's `zipfile` reads it: every entry's name, Unix mode and bytes,
    /// and whether `testzip` found every CRC right.
    static func read(_ zip: URL) throws -> Listing {
        let script = """
            import base64, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as archive:
                checked = archive.testzip() is None
                entries = [{"name": info.filename, "mode": info.external_attr >> 16,
                            "base64": base64.b64encode(archive.read(info)).decode()} for info in archive.infolist()]
            print(json.dumps({"checked": checked, "entries": entries}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-I", "-c", script, zip.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode(Listing.self, from: data)
    }
}
