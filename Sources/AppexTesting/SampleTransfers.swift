public import AppexRegistry
public import Foundation

/// Transfer tasks of the Notes sample's session, as its Share extension would make them.
public enum SampleTransfers {
    /// A download of `url` into the group's container in `groups` (a home's `Groups/`),
    /// where appexd would put it.
    public static func download(_ url: URL, into groups: URL, timeout: TimeInterval = 60,
                                resourceTimeout: TimeInterval = TransferTask.defaultResourceTimeout) -> TransferTask {
        TransferTask(appIdentifier: "com.example.notes", sessionIdentifier: "com.example.notes.transfers", groupIdentifier: "group.com.example.notes",
                     owner: "com.example.notes.share", kind: .download, request: .init(url: url, timeout: timeout),
                     destination: groups.appendingPathComponent("group.com.example.notes/Library/Caches/Transfers/\(UUID().uuidString)"), resourceTimeout: resourceTimeout)
    }

    /// An upload of `file` to `url`, posted.
    public static func upload(_ file: URL, to url: URL) -> TransferTask {
        TransferTask(appIdentifier: "com.example.notes", sessionIdentifier: "com.example.notes.transfers", groupIdentifier: "group.com.example.notes",
                     owner: "com.example.notes.share", kind: .upload, request: .init(url: url, method: "POST"), bodyFile: file)
    }
}
