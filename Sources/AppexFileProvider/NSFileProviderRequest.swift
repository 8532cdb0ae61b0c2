public import Foundation

/// Who a call to the provider is made for.
///
/// On Linux the callers of a domain's files are the user's own processes, reaching the mount
/// through the kernel; appexd knows the process behind each request, but, as on Apple's
/// platforms, tells the provider only whether the system made it.
open class NSFileProviderRequest: NSObject, @unchecked Sendable {
    /// Whether the system made the call to keep the domain in step (a refresh after a
    /// signal, an upload it replays), rather than a user's program.
    public let isSystemRequest: Bool
    /// Whether a file manager made it. Always false here: appexd can't tell a file manager
    /// from any other program that lists the folder.
    public let isFileViewerRequest: Bool
    /// The program that asked. Nil, as on Apple's platforms without the user's consent.
    public let requestingExecutable: URL?

    public init(isSystemRequest: Bool = false, isFileViewerRequest: Bool = false, requestingExecutable: URL? = nil) {
        self.isSystemRequest = isSystemRequest
        self.isFileViewerRequest = isFileViewerRequest
        self.requestingExecutable = requestingExecutable
    }
}
