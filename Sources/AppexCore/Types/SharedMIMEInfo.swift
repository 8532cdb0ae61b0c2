import Foundation

/// The parts of a freedesktop.org shared-mime-info database that type lookups use:
/// MIME aliases, sub-class-of relations and filename globs.
///
/// Linux systems keep it in `/usr/share/mime` (files `aliases`, `subclasses`, `globs2`).
/// ``UTTypeGraph`` consults it when its own table has no type for a MIME type or an
/// extension, so `image/jpg` finds `public.jpeg` and `text/x-csrc`, a subclass of
/// `text/plain`, gets a dynamic type that conforms to `public.plain-text`.
public struct SharedMIMEInfo: Sendable, Hashable {
    /// The directory Linux distributions install the database in.
    public static let defaultDirectory = "/usr/share/mime"
    /// The largest file read; the real `globs2` is about 60 KiB.
    public static let maximumFileSize = 8 * 1024 * 1024

    /// Alias MIME type → canonical MIME type, keys lowercased.
    public let aliases: [String: String]
    /// MIME type → the MIME types it is a subclass of, keys and values lowercased.
    public let parents: [String: [String]]
    /// Lowercased filename extension → MIME types, the highest-weighted first. Only simple
    /// `*.ext` globs are kept; case-sensitive globs are kept lowercased.
    public let extensions: [String: [String]]

    /// Creates a database from the text of its files; any may be empty.
    public init(aliases: String, subclasses: String, globs2: String) {
        var aliasTable: [String: String] = [:]
        Self.forEachLine(aliases, separator: nil) { fields in
            if fields.count >= 2 { aliasTable[fields[0]] = fields[1] }
        }
        var parentTable: [String: [String]] = [:]
        Self.forEachLine(subclasses, separator: nil) { fields in
            if fields.count >= 2, !parentTable[fields[0], default: []].contains(fields[1]) {
                parentTable[fields[0], default: []].append(fields[1])
            }
        }
        // weight:mime-type:glob[:flags]; only simple "*.ext" globs map extensions.
        var weighted: [String: [(weight: Int, mime: String)]] = [:]
        Self.forEachLine(globs2, separator: UInt8(ascii: ":")) { fields in
            guard fields.count >= 3, let weight = Int(fields[0]), fields[2].hasPrefix("*.") else { return }
            let suffix = fields[2].dropFirst(2)
            guard !suffix.isEmpty, !suffix.contains(where: { "*?[]".contains($0) }) else { return }
            weighted[String(suffix), default: []].append((weight, fields[1]))
        }
        var extensionTable: [String: [String]] = [:]
        for (suffix, entries) in weighted {
            var mimes: [String] = []
            // A stable sort keeps the file's order among equal weights.
            for entry in entries.enumerated().sorted(by: { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) })
            where !mimes.contains(entry.element.mime) {
                mimes.append(entry.element.mime)
            }
            extensionTable[suffix] = mimes
        }
        self.aliases = aliasTable
        self.parents = parentTable
        self.extensions = extensionTable
    }

    /// Reads the database in `directory`.
    ///
    /// - Returns: `nil` when the directory has none of the three files, so a machine
    ///   without shared-mime-info simply goes without it.
    public init?(directory: String = SharedMIMEInfo.defaultDirectory) {
        let base = URL(fileURLWithPath: directory, isDirectory: true)
        func read(_ name: String) -> String? {
            let url = base.appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                let size = attributes[.size] as? NSNumber, size.intValue <= Self.maximumFileSize,
                let data = try? Data(contentsOf: url)
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
        let aliases = read("aliases")
        let subclasses = read("subclasses")
        let globs2 = read("globs2")
        guard aliases != nil || subclasses != nil || globs2 != nil else { return nil }
        self.init(aliases: aliases ?? "", subclasses: subclasses ?? "", globs2: globs2 ?? "")
    }

    /// The canonical MIME type for `mimeType`: itself, or what it is an alias of. Lowercased.
    public func canonicalMIMEType(_ mimeType: String) -> String {
        let lowered = mimeType.lowercased()
        return aliases[lowered] ?? lowered
    }

    /// The MIME types `mimeType` is a subclass of, directly, including the implicit rule
    /// that every `text/*` type is a subclass of `text/plain`.
    public func superclasses(of mimeType: String) -> [String] {
        let canonical = canonicalMIMEType(mimeType)
        var result = parents[canonical] ?? []
        if canonical.hasPrefix("text/"), canonical != "text/plain", !result.contains("text/plain") {
            result.append("text/plain")
        }
        return result
    }

    /// The MIME types for a filename extension, the most likely first.
    public func mimeTypes(forFilenameExtension filenameExtension: String) -> [String] {
        extensions[filenameExtension.lowercased()] ?? []
    }

    /// Calls `body` with the lowercased fields of each line that is neither empty nor a
    /// comment. Fields are split at `separator`, or at spaces and tabs when it is `nil`.
    /// Works on UTF-8 bytes: the files are large and this runs once per process.
    private static func forEachLine(_ text: String, separator: UInt8?, _ body: ([String]) -> Void) {
        var text = text
        text.withUTF8 { bytes in
            var fields: [String] = []
            var field: [UInt8] = []
            var lineStart = true
            var skipping = false
            func endField() {
                if separator != nil || !field.isEmpty {
                    fields.append(String(decoding: field, as: UTF8.self))
                }
                field.removeAll(keepingCapacity: true)
            }
            func endLine() {
                if !skipping, !lineStart {
                    endField()
                    if !fields.isEmpty { body(fields) }
                }
                fields.removeAll(keepingCapacity: true)
                field.removeAll(keepingCapacity: true)
                lineStart = true
                skipping = false
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    endLine()
                    continue
                case _ where skipping:
                    continue
                case UInt8(ascii: "#") where lineStart:
                    skipping = true
                case separator ?? 0 where separator != nil:
                    endField()
                case UInt8(ascii: " ") where separator == nil, UInt8(ascii: "\t") where separator == nil:
                    endField()
                default:
                    field.append(CaseInsensitiveKey.lowercase(byte))
                }
                lineStart = false
            }
            endLine()
        }
    }
}
