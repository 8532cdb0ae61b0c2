public import Foundation
import AppexCore
import AppexSystem

/// Coordinates reading and writing of files and folders between threads and processes, as
/// Apple's `NSFileCoordinator` does; Foundation on Linux has none.
///
/// A coordinated write waits for every other coordinated access to the item, and to
/// anything inside it when it is a folder; coordinated reads wait only for writes. So a
/// reader never sees a file its writer has half written, and two processes' read-modify-
/// write cycles never interleave. The accessor runs on the calling thread once access is
/// granted, and access ends when it returns.
///
/// ```swift
/// var error: NSError?
/// NSFileCoordinator().coordinate(writingItemAt: url, options: .forReplacing, error: &error) { url in
///     try? data.write(to: url, options: .atomic)
/// }
/// ```
///
/// The locks are the kernel's, on a lock file at the root of each container, so they hold
/// between an app and its sandboxed extensions and are dropped when a process dies.
/// Coordinating again from inside an accessor, with the same coordinator, adds to what it
/// holds and never waits for itself; with another coordinator it can wait forever, as on
/// Apple's systems. File presenters are not supported yet: `init(filePresenter:)` takes
/// only nil, and the options that address presenters change nothing else.
public final class NSFileCoordinator {
    /// How a coordinated read proceeds.
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Read without asking presenters to save first (no presenters here, so always so).
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// Coordinate on, and hand the accessor, the item a symbolic link points to.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Only metadata that is available at once is read.
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
    }

    /// What a coordinated write intends; each waits for the item as any write does.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The item is deleted.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The item is moved; coordinate on its old and new places at once.
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// The item's contents are merged with what is there.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// The item is replaced: write the new contents beside it and rename them over it
        /// (`Data.write(to:options: .atomic)`), so that even an uncoordinated reader sees
        /// the old file or the new one.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata that does not depend on the contents changes, such as a tag.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    /// What this coordinator holds while one of its accessors runs.
    private var held: CoordinationLocks?

    /// A coordinator. File presenters are not supported yet, so `filePresenter` can only be nil.
    public init(filePresenter: Never? = nil) {}

    /// Runs `reader` with `url` once no one is writing it, or sets `outError` and does not.
    public func coordinate(readingItemAt url: URL, options: ReadingOptions = [], error outError: UnsafeMutablePointer<NSError?>?,
                           byAccessor reader: (URL) -> Void) {
        let intent = NSFileAccessIntent.readingIntent(with: url, options: options)
        coordinate([intent], error: outError) { reader(intent.url) }
    }

    /// Runs `writer` with `url` once no one else is reading or writing it, or sets `outError` and does not.
    public func coordinate(writingItemAt url: URL, options: WritingOptions = [], error outError: UnsafeMutablePointer<NSError?>?,
                           byAccessor writer: (URL) -> Void) {
        let intent = NSFileAccessIntent.writingIntent(with: url, options: options)
        coordinate([intent], error: outError) { writer(intent.url) }
    }

    /// Runs `readerWriter` once it may read `readingURL` and write `writingURL`, both at once.
    public func coordinate(readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
                           writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
                           error outError: UnsafeMutablePointer<NSError?>?, byAccessor readerWriter: (URL, URL) -> Void) {
        let reading = NSFileAccessIntent.readingIntent(with: readingURL, options: readingOptions)
        let writing = NSFileAccessIntent.writingIntent(with: writingURL, options: writingOptions)
        coordinate([reading, writing], error: outError) { readerWriter(reading.url, writing.url) }
    }

    /// Runs `writer` once it may write both `url1` and `url2`, as a move from one to the other needs.
    public func coordinate(writingItemAt url1: URL, options options1: WritingOptions = [],
                           writingItemAt url2: URL, options options2: WritingOptions = [],
                           error outError: UnsafeMutablePointer<NSError?>?, byAccessor writer: (URL, URL) -> Void) {
        let first = NSFileAccessIntent.writingIntent(with: url1, options: options1)
        let second = NSFileAccessIntent.writingIntent(with: url2, options: options2)
        coordinate([first, second], error: outError) { writer(first.url, second.url) }
    }

    /// Waits for every access in `intents` without blocking the caller, then runs `accessor`
    /// on `queue` with nil, or with the error that kept it from access. Access ends when
    /// `accessor` returns.
    public func coordinate(with intents: [NSFileAccessIntent], queue: OperationQueue,
                           byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void) {
        let claims = Self.claims(for: intents)
        DispatchQueue.global().async {
            var locks = CoordinationLocks()
            do {
                try locks.take(claims)
            } catch {
                locks.release()
                queue.addOperation { accessor(Self.error(error, intents)) }
                return
            }
            let granted = locks
            queue.addOperation {
                accessor(nil)
                granted.release()
            }
        }
    }

    /// Takes what `intents` need, runs `body`, and lets go; or sets `outError`.
    private func coordinate(_ intents: [NSFileAccessIntent], error outError: UnsafeMutablePointer<NSError?>?, _ body: () -> Void) {
        let claims = Self.claims(for: intents)
        let outermost = held == nil
        var locks = held ?? CoordinationLocks()
        do {
            try locks.take(claims)
        } catch {
            if outermost { locks.release() }
            outError?.pointee = Self.error(error, intents)
            return
        }
        held = locks
        defer {
            if outermost {
                held?.release()
                held = nil
            }
        }
        body()
    }

    private static func claims(for intents: [NSFileAccessIntent]) -> [CoordinationClaim] {
        CoordinationClaim.merged(intents.flatMap { intent in
            let item = CoordinatedItem.locate(intent.url)
            return intent.isWriting ? CoordinationClaim.writing(item) : CoordinationClaim.reading(item, isFolder: intent.url.isFolder)
        })
    }

    /// A Cocoa error that says which items could not be coordinated, and why.
    private static func error(_ error: any Error, _ intents: [NSFileAccessIntent]) -> NSError {
        let writing = intents.contains(where: \.isWriting)
        let items = intents.map(\.url.path).joined(separator: ", ")
        return NSError(domain: NSCocoaErrorDomain, code: (writing ? CocoaError.fileWriteUnknown : .fileReadUnknown).rawValue, userInfo: [
            NSFilePathErrorKey: intents.first?.url.path ?? "",
            NSLocalizedDescriptionKey: "Access to \(items) could not be coordinated: \(error). "
                + "Coordination locks live in the \(AppexHome.coordinationLockName) file of the item's container, or in the user's runtime folder.",
            NSUnderlyingErrorKey: error,
        ])
    }
}

extension URL {
    /// Whether a folder is at this file URL now.
    fileprivate var isFolder: Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
