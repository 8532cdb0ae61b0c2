public import AppexSystem
import Glibc
import Synchronization

/// appexd's side of the launcher (docs/zygote.md): it starts `appex-launcher`, which dies with
/// this process, and hands it the launches of executables it can load, one at a time. The
/// processes it returns are not this process's children: each is watched through its pidfd,
/// and how it ended comes from its init's exit report.
///
/// ```swift
/// let launcher = try Launcher(executable: "/usr/libexec/appex-launcher")
/// let process = try launcher.start(launch) ?? launch.spawn()   // nil: it can't be loaded
/// ```
public final class Launcher: Sendable {
    /// The launcher's process, this process's child.
    public let process: ProcessDescriptor
    /// The path of the Swift runtime (`libswiftCore.so`) it has loaded.
    public let runtimePath: String
    /// The path of the AppexKit it has loaded, if it was given one: executables linked to
    /// AppexKit are loaded only then, and run with it.
    public let appexKitPath: String?
    /// How long the launcher has to answer an order: a fork and the sandbox's steps take
    /// milliseconds, so a launcher that takes this long is stuck, and is ended.
    public let answerDeadline: Duration
    private let runtime: FileIdentity?
    private let channel: Mutex<LauncherChannel>
    private let verdicts = Mutex<[ExecutableVersion: Result<LoadableExecutable, LoadableExecutable.Refusal>]>([:])

    /// Starts `executable`, an `appex-launcher`, with `environment` (by default only a
    /// sanitized build's settings, which its children keep, since they never exec), loading the
    /// shared AppexKit at `appexKit` (a `libAppexKit.so`) if given, and waits for it to say which
    /// runtime it has loaded. Throws if it can't be started, ends first, or says nothing within
    /// `answerDeadline`.
    public init(executable: String, appexKit: String? = nil, environment: [String: String] = Sanitizers.settings,
                answerDeadline: Duration = .seconds(30)) throws(SystemError) {
        self.answerDeadline = answerDeadline
        let (ours, theirs) = try UnixSocket.pair()
        var environment = environment
        if let appexKit {
            environment["LD_LIBRARY_PATH"] = Self.folder(of: appexKit)
            environment[LauncherService.loadAppexKit] = "1"
        }
        process = try ProcessLaunch(executable: executable, environment: environment, descriptors: [(theirs, 3), (try Self.standardError(), 2)],
                                    diesWithParent: true).spawn()
        theirs.close()
        let channel = LauncherChannel(socket: ours)
        do throws(SystemError) {
            guard try UnixSocket.waitForInput(ours, timeout: answerDeadline) else {
                throw SystemError("start", subject: "\(executable): it said nothing within \(answerDeadline)", errno: ETIMEDOUT)
            }
            guard let (hello, _) = try channel.receive(LauncherHello.self) else {
                throw SystemError("start", subject: "\(executable): it ended before it was ready (\(process.end(graceMilliseconds: 0).map { "\($0)" } ?? "?"))",
                                  errno: ECHILD)
            }
            runtimePath = hello.runtime
            appexKitPath = hello.appexKit
        } catch {
            process.end(graceMilliseconds: 0)
            throw error
        }
        runtime = FileIdentity(path: runtimePath)
        self.channel = Mutex(channel)
    }

    /// The folder of the file at `path`, which the loader searches for it by name.
    public static func folder(of path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return parts.isEmpty ? "." : parts == [""] ? "/" : parts.joined(separator: "/")
    }

    /// A copy of this process's standard error, for the launcher's to be the same.
    private static func standardError() throws(SystemError) -> FileDescriptor {
        let copy = fcntl(2, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw SystemError("dup", subject: "standard error") }
        return FileDescriptor(owning: copy)
    }

    deinit {
        UnixSocket.shutdown(channel.withLock { $0.socket })
        process.end(graceMilliseconds: 1000)
    }

    /// Whether the executable at `path` can be loaded by the launcher, or why not; decided
    /// once for each version of the file.
    public func loadability(of path: String) -> Result<LoadableExecutable, LoadableExecutable.Refusal> {
        let file: FileDescriptor
        let version: ExecutableVersion
        do {
            file = try FileDescriptor.open(path)
            version = try ExecutableVersion(file)
        } catch {
            return .failure(.malformed("it can't be opened: \(error)"))
        }
        if let known = verdicts.withLock({ $0[version] }) { return known }
        guard let runtime else { return .failure(.linksAnotherRuntime("the launcher's runtime, \(runtimePath), can't be found")) }
        let verdict = Result { () throws(LoadableExecutable.Refusal) in try LoadableExecutable(file, path: path, runtime: runtime, hasAppexKit: appexKitPath != nil) }
        verdicts.withLock { $0[version] = verdict }
        return verdict
    }

    /// Why ``start(_:)`` failed.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// A step of the launch failed, as a spawn's would (the error's operation names which),
        /// and no process is left.
        case launch(SystemError)
        /// The launcher itself failed: it ended, or its answer was malformed. Spawn instead,
        /// and start a new launcher.
        case launcher(SystemError)

        public var description: String {
            switch self {
            case .launch(let error): "\(error)"
            case .launcher(let error): "the launcher failed: \(error)"
            }
        }
    }

    /// Starts `launch` in the launcher if its executable can be loaded (``loadability(of:)``)
    /// and its sandbox gives it a pid namespace, whose init reports how it ends; nil if it
    /// must be spawned instead.
    public func start(_ launch: ProcessLaunch) throws(Failure) -> ProcessDescriptor? {
        guard launch.restrictions?.namespaces.contains(.pid) == true,
              case .success(let loadable) = loadability(of: launch.executable), !loadable.isFlaggedPIE else { return nil }
        let (order, descriptors) = LaunchOrder.make(launch, mainAddress: loadable.mainAddress)
        let answer: (LaunchReply, [FileDescriptor])
        do throws(SystemError) {
            answer = try channel.withLock { channel throws(SystemError) in
                try channel.send(order, descriptors: descriptors)
                guard try UnixSocket.waitForInput(channel.socket, timeout: answerDeadline) else {
                    process.kill()
                    throw SystemError("receive", subject: "the launcher's answer, which took more than \(answerDeadline); it was ended", errno: ETIMEDOUT)
                }
                guard let answer = try channel.receive(LaunchReply.self) else { throw SystemError("receive", subject: "the launcher hung up", errno: ECONNRESET) }
                return answer
            }
        } catch {
            throw .launcher(error)
        }
        let (reply, handedOver) = answer
        if let failure = reply.failure { throw .launch(failure) }
        guard let processID = reply.processID, handedOver.count == 2 else {
            throw .launcher(SystemError("receive", subject: "the launcher's answer for \(launch.executable) is malformed", errno: EBADMSG))
        }
        return ProcessDescriptor(processID: processID, owning: handedOver[0], exitReport: handedOver[1], isChild: false)
    }
}
