import AppexSystem
public import Foundation
import Glibc

/// A Share or Action extension's JavaScript preprocessing file
/// (`NSExtensionJavaScriptPreprocessingFile`), which a browser runs in the web page before
/// the extension starts (docs/browser.md).
///
/// The key names the file without `.js`, as Apple's does; the file lies at the top of the
/// `.appex` folder. Reading it takes the bundle's own file and nothing else: the name is
/// one path component, the file is opened without following a link, and only a regular
/// file of at most ``maximumLength`` bytes of UTF-8 is taken.
///
/// ```swift
/// let script = try PreprocessingFile.read("Action", inExtensionAt: appex)
/// script.source   // the text the browser injects
/// ```
public struct PreprocessingFile: Sendable, Hashable {
    /// The file's name in the bundle, with `.js`.
    public var fileName: String
    /// The script.
    public var source: String

    /// The largest preprocessing file taken: 512 KiB, which the browser's messages carry
    /// whole. Apple's samples are a few hundred bytes.
    public static let maximumLength = 512 << 10

    public init(fileName: String, source: String) {
        self.fileName = fileName
        self.source = source
    }

    /// The file `value` names: `value.js`. Throws when `value` is not a name of one path
    /// component, or already ends in `.js`.
    public static func fileName(for value: String) throws(PreprocessingFileError) -> String {
        guard !value.isEmpty, !value.hasPrefix("."), !value.contains("/"), !value.contains("\0") else {
            throw PreprocessingFileError(.invalidName, "\"\(value)\" is not the name of a file in the bundle",
                                         hint: "name the script without its folder and without .js, such as Action for Action.js")
        }
        guard !value.lowercased().hasSuffix(".js") else {
            throw PreprocessingFileError(.invalidName, "\"\(value)\" ends in .js, so the file would be \(value).js",
                                         hint: "name it without .js: \(value.dropLast(3)), as Safari reads it")
        }
        return value + ".js"
    }

    /// Reads the file that `value` names from the `.appex` folder at `bundle`.
    public static func read(_ value: String, inExtensionAt bundle: URL) throws(PreprocessingFileError) -> PreprocessingFile {
        let name = try fileName(for: value)
        let path = bundle.appendingPathComponent(name).path
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            switch error.errno {
            case ENOENT:
                throw PreprocessingFileError(.missing, "\(name) is not in the bundle", hint: "add \(name) at the top of the .appex folder, or remove NSExtensionJavaScriptPreprocessingFile")
            case ELOOP:
                throw PreprocessingFileError(.notRegularFile, "\(name) is a symbolic link", hint: "put the script itself in the bundle")
            default:
                throw PreprocessingFileError(.unreadable, "\(name) can't be opened: \(error)", hint: "make it a readable file")
            }
        }
        defer { descriptor.close() }
        let contents: Data
        do {
            guard try descriptor.isRegularFile() else {
                throw PreprocessingFileError(.notRegularFile, "\(name) is not a regular file", hint: "put the script itself in the bundle")
            }
            contents = try descriptor.readContents(limit: maximumLength)
        } catch let error as PreprocessingFileError {
            throw error
        } catch let error as SystemError where error.errno == EFBIG {
            throw PreprocessingFileError(.tooLarge, "\(name) is larger than \(maximumLength / 1024) KiB", hint: "keep the script small: it runs in every page the user shares")
        } catch {
            throw PreprocessingFileError(.unreadable, "\(name) can't be read: \(error)", hint: "make it a readable file")
        }
        guard let source = String(validating: contents, as: UTF8.self) else {
            throw PreprocessingFileError(.notUTF8, "\(name) is not UTF-8 text", hint: "save the script as UTF-8")
        }
        return PreprocessingFile(fileName: name, source: source)
    }
}

/// Why an extension's preprocessing file can't be used, and what to do.
public struct PreprocessingFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, for scripts and tests.
    public enum Code: String, Sendable, Hashable {
        case invalidName = "invalid-preprocessing-file"
        case missing = "missing-preprocessing-file"
        case notRegularFile = "preprocessing-file-not-regular"
        case tooLarge = "preprocessing-file-too-large"
        case notUTF8 = "preprocessing-file-not-utf8"
        case unreadable = "preprocessing-file-unreadable"
    }

    public var code: Code
    public var reason: String
    public var hint: String

    public init(_ code: Code, _ reason: String, hint: String) {
        self.code = code
        self.reason = reason
        self.hint = hint
    }

    public var description: String { "\(reason); \(hint)" }
}
