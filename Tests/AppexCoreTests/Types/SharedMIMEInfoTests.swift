import AppexCore
import Foundation
import Testing

@Suite struct SharedMIMEInfoTests {
    /// A small shared-mime-info directory written for the test.
    static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("appex-mime-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
            image/jpg image/jpeg
            image/pjpeg image/jpeg
            application/x-pdf application/pdf
            text/x-c text/x-csrc
            """.write(to: directory.appendingPathComponent("aliases"), atomically: true, encoding: .utf8)
        try """
            text/x-csrc text/plain
            text/x-chdr text/x-csrc
            application/x-example-loop-a application/x-example-loop-b
            application/x-example-loop-b application/x-example-loop-a
            application/x-example-zipped application/zip
            """.write(to: directory.appendingPathComponent("subclasses"), atomically: true, encoding: .utf8)
        try """
            # comment
            50:text/x-csrc:*.c
            50:text/x-csrc:*.zzc
            50:text/x-chdr:*.zzh
            50:text/rust:*.rs
            60:image/jpeg:*.jfif
            40:application/x-example-zipped:*.zzz
            10:application/x-weak:*.zzw
            90:application/x-strong:*.zzw
            50:text/x-readme:README*
            """.write(to: directory.appendingPathComponent("globs2"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test func parsesTheThreeFiles() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let info = try #require(SharedMIMEInfo(directory: directory.path))
        #expect(info.canonicalMIMEType("IMAGE/JPG") == "image/jpeg")
        #expect(info.canonicalMIMEType("image/png") == "image/png")
        #expect(info.superclasses(of: "text/x-chdr") == ["text/x-csrc", "text/plain"])
        #expect(info.superclasses(of: "text/x-anything") == ["text/plain"])
        #expect(info.mimeTypes(forFilenameExtension: "ZZW") == ["application/x-strong", "application/x-weak"])
        #expect(info.mimeTypes(forFilenameExtension: "readme").isEmpty)
        #expect(SharedMIMEInfo(directory: directory.appendingPathComponent("missing").path) == nil)
    }

    @Test func toleratesWhitespaceCommentsAndCase() {
        let info = SharedMIMEInfo(
            aliases: "# comment\r\nImage/JPG\timage/jpeg  \r\n\n   \nlonely\n",
            subclasses: "text/x-a text/x-b\ntext/x-a text/x-c\ntext/x-a text/x-b\n#text/x-a text/x-d",
            globs2: "50:text/x-a:*.AAA\n50:text/x-b:*.aaa:cs\nbad line\nx:text/x-c:*.ccc\n60:text/x-d:*.d*\n")
        #expect(info.canonicalMIMEType("image/jpg") == "image/jpeg")
        #expect(info.aliases.count == 1)
        #expect(info.parents["text/x-a"] == ["text/x-b", "text/x-c"])
        #expect(info.mimeTypes(forFilenameExtension: "aaa") == ["text/x-a", "text/x-b"])
        #expect(info.mimeTypes(forFilenameExtension: "ccc").isEmpty)
        #expect(info.extensions.count == 1)
    }

    @Test func withSharedMIMEInfo() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let graph = try UTTypeGraph.makeSystem(sharedMIMEDirectory: directory.path)
        #expect(graph.sharedMIMEInfo != nil)

        // Aliases find declared types.
        #expect(graph.type(forMIMEType: "image/jpg")?.identifier == "public.jpeg")
        #expect(graph.type(forMIMEType: "application/x-pdf")?.identifier == "com.adobe.pdf")
        #expect(graph.types(forTag: "image/pjpeg", tagClass: .mimeType, conformingTo: nil).map(\.identifier) == ["public.jpeg"])

        // A subclass of text/plain gets a dynamic type that is plain text.
        let csrc = try #require(graph.type(forMIMEType: "text/x-csrc"))
        #expect(csrc.isDynamic)
        #expect(csrc.conforms(to: UTType.plainText))
        #expect(csrc.conforms(to: UTType.data))
        #expect(csrc.preferredMIMEType == "text/x-csrc")
        // Through an alias and two levels of subclass.
        #expect(graph.type(forMIMEType: "text/x-c") == csrc)
        #expect(try #require(graph.type(forMIMEType: "text/x-chdr")).conforms(to: UTType.plainText))
        // Every text/* is implicitly text/plain.
        #expect(try #require(graph.type(forMIMEType: "text/x-never-heard-of")).conforms(to: UTType.plainText))
        #expect(try #require(graph.type(forMIMEType: "application/x-example-zipped")).conforms(to: UTType.zip))
        // Subclass cycles end.
        let loop = try #require(graph.type(forMIMEType: "application/x-example-loop-a"))
        #expect(loop.conforms(to: UTType.data))
        #expect(!loop.conforms(to: UTType.text))

        // Extensions go through globs: declared where the MIME type is declared…
        #expect(graph.type(forFilenameExtension: "jfif")?.identifier == "public.jpeg")
        // …dynamic with both tags otherwise.
        let rust = try #require(graph.type(forFilenameExtension: "rs"))
        #expect(rust.isDynamic)
        #expect(rust.preferredFilenameExtension == "rs")
        #expect(rust.preferredMIMEType == "text/rust")
        #expect(rust.conforms(to: UTType.plainText))
        // The built-in table wins over globs: .c is public.c-source.
        #expect(graph.type(forFilenameExtension: "c")?.identifier == "public.c-source")
        #expect(try #require(graph.type(forFilenameExtension: "zzc")).conforms(to: UTType.plainText))
    }

    @Test func withoutSharedMIMEInfo() throws {
        let graph = try UTTypeGraph.makeSystem(sharedMIMEDirectory: nil)
        #expect(graph.sharedMIMEInfo == nil)
        // The built-in table still answers.
        #expect(graph.type(forMIMEType: "image/jpeg")?.identifier == "public.jpeg")
        #expect(graph.type(forFilenameExtension: "jpg")?.identifier == "public.jpeg")
        // Aliases and subclasses are unknown: dynamic types that are only data.
        let jpg = try #require(graph.type(forMIMEType: "image/pjpeg"))
        #expect(jpg.isDynamic)
        #expect(!jpg.conforms(to: UTType.image))
        let csrc = try #require(graph.type(forMIMEType: "text/x-csrc"))
        #expect(csrc.conforms(to: UTType.data))
        #expect(!csrc.conforms(to: UTType.plainText))
        // A directory without the files is the same as none.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("appex-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(try UTTypeGraph.makeSystem(sharedMIMEDirectory: empty.path).sharedMIMEInfo == nil)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/mime/subclasses")))
    func againstTheMachinesDatabase() throws {
        let graph = try UTTypeGraph.makeSystem(sharedMIMEDirectory: SharedMIMEInfo.defaultDirectory)
        #expect(graph.sharedMIMEInfo != nil)
        #expect(graph.type(forMIMEType: "application/x-pdf")?.identifier == "com.adobe.pdf")
        #expect(try #require(graph.type(forMIMEType: "text/x-csrc")).conforms(to: UTType.plainText))
        #expect(try #require(graph.type(forMIMEType: "text/x-python3")).conforms(to: UTType.text))
        #expect(graph.type(forFilenameExtension: "jpg")?.identifier == "public.jpeg")
        #expect(graph.type(forMIMEType: "image/jpeg")?.identifier == "public.jpeg")
        // The system graph uses the same database.
        #expect(UTTypeGraph.system.sharedMIMEInfo != nil)
    }
}
