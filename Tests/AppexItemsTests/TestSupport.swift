@testable import AppexItems
import AppexCore
import Foundation
import Testing

/// A folder of the test's own under the system's temporary directory: the test writes
/// its source files at the top, and points providers at ``temporary`` so it can count the
/// temporary files they leave behind.
struct TestFolder {
    let url: URL
    /// Where the test's providers make temporary files.
    let temporary: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("appex-items-tests-\(UUID().uuidString)", isDirectory: true)
        temporary = url.appendingPathComponent("tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    }

    /// The names of the entries in ``temporary``.
    func temporaryEntries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()
    }

    /// Writes `contents` to a new file called `name` and returns its URL.
    func write(_ contents: String, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(contents.utf8).write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a new ``TestFolder``, checks that no temporary file is left in it, and
/// removes it.
func withTestFolder(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (TestFolder) async throws -> Void
) async throws {
    let folder = try TestFolder()
    defer { folder.remove() }
    try await body(folder)
    #expect(try await soon { try folder.temporaryEntries() == [] }, "temporary files were left behind", sourceLocation: sourceLocation)
}

/// Whether `condition` holds now or within 10 s. A file load's completion handler hands its
/// result to the test before it returns, and the provider removes the file only once it has
/// returned, on the loading thread, so the test may look before the removal.
func soon(_ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while try !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// An error a test's load handler reports, to check that it reaches the consumer unchanged.
struct HandlerFailure: Error, Equatable {
    let detail: String
}

extension NSItemProvider {
    /// A provider whose temporary copies go to `folder`.
    convenience init(temporaryFilesIn folder: TestFolder) {
        self.init()
        temporaryDirectory = folder.temporary
    }

    /// Registers `data` as a data representation of `typeIdentifier`.
    func register(_ data: Data, as typeIdentifier: String, visibility: NSItemProviderRepresentationVisibility = .all) {
        registerDataRepresentation(forTypeIdentifier: typeIdentifier, visibility: visibility) { completion in
            completion(data, nil)
            return nil
        }
    }

    /// Registers the file at `url` as a file representation of `typeIdentifier`.
    func register(file url: URL, as typeIdentifier: String, fileOptions: NSItemProviderFileOptions = []) {
        registerFileRepresentation(forTypeIdentifier: typeIdentifier, fileOptions: fileOptions, visibility: .all) { completion in
            completion(url, false, nil)
            return nil
        }
    }

    /// The data or error a callback data load delivers.
    func dataResult(_ typeIdentifier: String) async -> (Data?, (any Error)?) {
        await withCheckedContinuation { continuation in
            loadDataRepresentation(forTypeIdentifier: typeIdentifier) { data, error in
                continuation.resume(returning: (data, error))
            }
        }
    }

    /// The item, as the value it stands for, or the error a callback item load delivers.
    func itemResult(_ typeIdentifier: String, options: [AnyHashable: Any]? = nil) async -> (ItemValue?, (any Error)?) {
        await withCheckedContinuation { continuation in
            loadItem(forTypeIdentifier: typeIdentifier, options: options) { item, error in
                continuation.resume(returning: (item.flatMap(ItemValue.init(secureCoding:)), error))
            }
        }
    }

    /// What a callback file load shows inside its completion handler: the URL, whether the
    /// file existed there, its contents, and the error.
    func fileResult(_ typeIdentifier: String) async -> FileLoadObservation {
        await withCheckedContinuation { continuation in
            loadFileRepresentation(forTypeIdentifier: typeIdentifier) { url, error in
                continuation.resume(returning: FileLoadObservation(url: url, error: error))
            }
        }
    }
}

/// What a file load's completion handler saw, recorded while the handler ran.
struct FileLoadObservation: Sendable {
    let url: URL?
    let existedInHandler: Bool
    let contents: Data?
    let error: (any Error)?

    init(url: URL?, error: (any Error)?) {
        self.url = url
        self.error = error
        existedInHandler = url.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        contents = url.flatMap { try? Data(contentsOf: $0) }
    }

    /// Whether the file is gone, or goes within 10 s, now that the handler has been called.
    func isRemoved() async -> Bool {
        guard let url else { return true }
        return await soon { !FileManager.default.fileExists(atPath: url.path) }
    }
}

/// The `NSItemProviderError` behind `error`, or a recorded issue.
func providerError(_ error: (any Error)?, sourceLocation: SourceLocation = #_sourceLocation) -> NSItemProviderError? {
    guard let error = error as? NSItemProviderError else {
        Issue.record("expected an NSItemProviderError, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return error
}

extension NSSecureCoding {
    /// The item as the Swift type it bridges to, as `item as? URL` gives on Apple's platforms.
    /// swiftc on Linux warns that such a cast from `any NSSecureCoding` "always fails",
    /// though it succeeds: the cast goes through `Any`, which it doesn't warn about.
    func bridged<T>(as type: T.Type) -> T? {
        (self as Any) as? T
    }
}
