import AppexCore
import AppexSystem
public import Foundation

// How a representation of one kind is loaded as another. The rules, also listed in the
// catalog's "Coercions" section:
// - as data: data as it is; a file's contents; an item's bytes (see `ItemValue.data`).
// - as a file: a copy of a file; data, or an item's bytes, written to a new file; a file
//   URL item that stands for a file's contents (see `ItemValue.contentFile`) copied.
// - as an item: data as `Data`, a file as its `URL`, an item as it is.

extension NSItemProvider.Representation.Payload {
    /// The payload as bytes.
    func data(in context: LoadContext) throws -> Data {
        switch self {
        case .data(let data):
            return data
        case .file(let url, _):
            return try Self.read(url, in: context)
        case .item(let item):
            let value = item.itemValue
            if let file = value.contentFile(registeredAs: context.representation.typeIdentifier) {
                return try Self.read(file, in: context)
            }
            return try value.data(in: context)
        }
    }

    /// The payload as a new temporary file, which the caller removes.
    func temporaryFile(in context: LoadContext) throws -> TemporaryFile {
        let source: URL? = switch self {
        case .file(let url, _): url
        case .item(let item): item.itemValue.contentFile(registeredAs: context.representation.typeIdentifier)
        case .data: nil
        }
        if let source {
            do {
                return try TemporaryFile.copying(source, in: context.temporaryDirectory)
            } catch {
                throw context.error(
                    .unavailableCoercionError,
                    "could not copy \(source.path) into \(context.temporaryDirectory.path);"
                        + " check that the file still exists and that the temporary directory is writable",
                    underlying: error)
            }
        }
        let bytes = try data(in: context)
        do {
            return try TemporaryFile.writing(bytes, named: context.temporaryFileName, in: context.temporaryDirectory)
        } catch {
            throw context.error(
                .unavailableCoercionError,
                "could not write \(bytes.count) bytes to a temporary file in \(context.temporaryDirectory.path);"
                    + " check that the temporary directory exists and is writable",
                underlying: error)
        }
    }

    /// The payload as an item: `Data`, a file's `URL`, or the item as it is.
    var item: any NSItemProviderValue {
        switch self {
        case .data(let data): data
        case .file(let url, _): url
        case .item(let item): item
        }
    }

    /// The file's contents, mapped rather than read, so that a large file costs nothing until
    /// its bytes are touched. On Linux, Foundation reads the whole file for `.mappedIfSafe`;
    /// `.alwaysMapped` maps it, as Apple's `.mappedIfSafe` does on a local volume (and, as
    /// there, a file truncated while the data is in use faults). An attachment handed over as
    /// a descriptor came from another process, which could truncate it so: it is mapped only
    /// if sealed, and read otherwise, up to 1 GiB (``AppexSystem/FileDescriptor/untrustedContents()``), and
    /// never through the link's path, which could reach a pipe that never ends. Another file
    /// that can't be mapped is read.
    private static func read(_ url: URL, in context: LoadContext) throws -> Data {
        do {
            if let descriptor = DescriptorLink.descriptor(behind: url) {
                defer { descriptor.close() }
                return try descriptor.untrustedContents()
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { return try zipped(url, in: context.temporaryDirectory) }
            if let mapped = try? Data(contentsOf: url, options: .alwaysMapped) { return mapped }
            return try Data(contentsOf: url)
        } catch {
            throw context.error(
                .unavailableCoercionError,
                "could not read the file \(url.path) that stands for \(context.representation.typeIdentifier);"
                    + " check that it exists, is a regular file and is readable",
                underlying: error)
        }
    }
}

extension NSItemProvider.Representation.Payload {
    /// A folder as data, as Apple's gives one: a zip archive of it (``AppexSystem/FolderZip``),
    /// written to a file that is mapped and removed, so the archive is not held twice.
    fileprivate static func zipped(_ folder: URL, in temporaryDirectory: URL) throws -> Data {
        let archive = temporaryDirectory.appendingPathComponent("appex-folder-\(UUID().uuidString).zip")
        defer { unlink(archive.path) }
        let output = try FileDescriptor.open(archive.path, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer { output.close() }
        let tree = try ConfinedFolder(trusted: folder.path)
        defer { tree.close() }
        try FolderZip(limits: FolderZip.zipLimits).write(tree, as: folder.lastPathComponent, to: output)
        return try Data(contentsOf: archive, options: .alwaysMapped)
    }
}

extension NSItemProvider.ItemValue {
    /// The file this item stands for: a file URL registered under a type that is not a URL
    /// type (`public.jpeg`, say) means the file's contents, as on Apple's platforms.
    public func contentFile(registeredAs typeIdentifier: String) -> URL? {
        guard case .url(let url) = self, url.isFileURL else { return nil }
        if let type = UTType(typeIdentifier), type.conforms(to: .url) { return nil }
        return url
    }

    /// The item's bytes: UTF-8 text, a URL's absolute string in UTF-8, data as it is, or a
    /// property list in XML.
    func data(in context: LoadContext) throws -> Data {
        switch self {
        case .string(let string):
            return Data(string.utf8)
        case .url(let url):
            return Data(url.absoluteString.utf8)
        case .data(let data):
            return data
        case .propertyList(let list):
            do {
                return try list.xmlData()
            } catch {
                throw context.error(
                    .unavailableCoercionError,
                    "could not encode the \(list.kindName) item as an XML property list; register a data representation instead",
                    underlying: error)
            }
        }
    }
}
