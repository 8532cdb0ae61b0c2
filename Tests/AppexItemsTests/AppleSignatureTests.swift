@testable import AppexItems
import AppexCore
import Foundation
import Testing

/// Calls written as Apple's signatures allow, which Appex's once refused: an optional URL
/// for `init?(contentsOf:)`, `registeredTypeIdentifiers()` with its default options, and a
/// `switch` over `NSItemProvider.ErrorCode`'s cases; and a folder loaded as data is a zip,
/// as Apple documents.
struct AppleSignatureTests {
    @Test func anOptionalURLMakesAProviderOrNil() async throws {
        try await withTestFolder { folder in
            let given: URL? = try folder.write("hi", to: "note.txt")
            let none: URL? = nil
            #expect(NSItemProvider(contentsOf: given)?.registeredTypeIdentifiers() == ["public.plain-text"])
            #expect(NSItemProvider(contentsOf: none) == nil)
        }
    }

    @Test func errorCodesAreAnEnumOfApplesFour() {
        func name(_ code: NSItemProvider.ErrorCode) -> String {
            switch code {
            case .unknownError: "unknown"
            case .itemUnavailableError: "unavailable"
            case .unexpectedValueClassError: "class"
            case .unavailableCoercionError: "coercion"
            }
        }
        #expect(NSItemProvider.ErrorCode(rawValue: -1000).map(name) == "unavailable")
        #expect(NSItemProvider.ErrorCode(rawValue: 7) == nil)
    }

    @Test func aFolderLoadedAsDataIsAZipOfItAndLeavesNoFile() async throws {
        try await withTestFolder { scratch in
            let folder = scratch.url.appendingPathComponent("Trip")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Day 1"), withIntermediateDirectories: true)
            try Data("sunny".utf8).write(to: folder.appendingPathComponent("Day 1/notes.txt"))
            let provider = try #require(NSItemProvider(contentsOf: folder))
            provider.temporaryDirectory = scratch.temporary
            #expect(provider.registeredTypeIdentifiers == ["public.folder"])
            let data = try await provider.loadDataRepresentation(forTypeIdentifier: "public.folder")
            #expect(data.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a zip's first local header")
            let names = try Self.zipNames(data, in: scratch.url)
            #expect(names == ["Trip/", "Trip/Day 1/", "Trip/Day 1/notes.txt"], "\(names)")
        }
    }

    /// The entries of the zip `data`, as Python's `zipfile` reads them, sorted.
    static func zipNames(_ data: Data, in folder: URL) throws -> [String] {
        let archive = folder.appendingPathComponent("read.zip")
        try data.write(to: archive)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", "import sys, zipfile; print('\\n'.join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))", archive.path]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
