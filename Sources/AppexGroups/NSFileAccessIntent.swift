public import Foundation

/// One item to read or write in an asynchronous coordination
/// (``NSFileCoordinator/coordinate(with:queue:byAccessor:)``), as Apple's `NSFileAccessIntent`.
public final class NSFileAccessIntent: Sendable {
    /// The item to use in the accessor: the one asked for, or where its symbolic link
    /// points when reading with `resolvesSymbolicLink`.
    public let url: URL
    /// Whether the item is written, not only read.
    let isWriting: Bool
    /// How a read proceeds; empty for a write.
    let readingOptions: NSFileCoordinator.ReadingOptions
    /// What a write intends; empty for a read.
    let writingOptions: NSFileCoordinator.WritingOptions

    private init(url: URL, reading: NSFileCoordinator.ReadingOptions = [], writing: NSFileCoordinator.WritingOptions?) {
        self.url = url
        isWriting = writing != nil
        readingOptions = reading
        writingOptions = writing ?? []
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
