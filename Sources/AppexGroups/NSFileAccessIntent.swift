public import Foundation
import AppexLocking

/// One item to read or write in an asynchronous coordination
/// (``NSFileCoordinator/coordinate(with:queue:byAccessor:)``), as Apple's `NSFileAccessIntent`.
public final class NSFileAccessIntent: Sendable {
    /// The item to use in the accessor: the one asked for, where its symbolic link points
    /// when reading with `resolvesSymbolicLink`, or its snapshot when reading `forUploading`.
    public var url: URL { current.withLock { $0 } }
    private let current: Locked<URL>
    /// Whether the item is written, not only read.
    let isWriting: Bool
    /// How a read proceeds; empty for a write.
    let readingOptions: NSFileCoordinator.ReadingOptions
    /// What a write intends; empty for a read.
    let writingOptions: NSFileCoordinator.WritingOptions

    private init(url: URL, reading: NSFileCoordinator.ReadingOptions = [], writing: NSFileCoordinator.WritingOptions?) {
        current = Locked(url)
        isWriting = writing != nil
        readingOptions = reading
        writingOptions = writing ?? []
    }

    /// Whether the item is read for uploading, through a snapshot.
    var isForUploading: Bool { !isWriting && readingOptions.contains(.forUploading) }

    /// Points the accessor at `url` instead, where a snapshot was made.
    func use(_ url: URL) {
        current.withLock { $0 = url }
    }

    /// An intent to read `url`.
    public class func readingIntent(with url: URL, options: NSFileCoordinator.ReadingOptions = []) -> NSFileAccessIntent {
        NSFileAccessIntent(url: options.contains(.resolvesSymbolicLink) ? url.resolvingSymlinksInPath() : url, reading: options, writing: nil)
    }

    /// An intent to write `url`.
    public class func writingIntent(with url: URL, options: NSFileCoordinator.WritingOptions = []) -> NSFileAccessIntent {
        NSFileAccessIntent(url: url, writing: options)
    }
}
