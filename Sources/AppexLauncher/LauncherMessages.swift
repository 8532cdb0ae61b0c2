import AppexSystem

/// What the launcher says first: which Swift runtime it has loaded, for appexd to match
/// executables against (``LoadableExecutable``), and which AppexKit, if it was asked to.
struct LauncherHello: Codable, Sendable {
    var runtime: String
    var appexKit: String?
}

/// The launcher's answer to a ``LaunchOrder``: the process, with its pidfd and the read end
/// of its init's exit report beside it, or why it couldn't be started.
struct LaunchReply: Codable, Sendable {
    var processID: Int32?
    var failure: SystemError?
}
