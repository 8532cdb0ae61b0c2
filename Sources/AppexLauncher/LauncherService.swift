public import AppexSystem
import CAppexSystem
import Foundation
import Glibc

/// The launcher's side of its socket to appexd (`appex-launcher`, docs/zygote.md): a
/// process of one thread that has loaded the shared Swift runtime and Foundation, and for
/// each ``LaunchOrder`` forks a child that applies the order's sandbox, loads the executable
/// and runs its `main` (`appex_run_loaded`). It answers each order with the process, or the
/// step that failed, and reaps the namespaces' first processes, which are orphaned to it.
///
/// It keeps nothing a program could learn another's data from: it never sees a request, and
/// each child closes every descriptor but the ones its order gives it. Nor does it touch
/// state that Foundation caches for the life of a process (`ProcessInfo`, `Bundle.main`,
/// `Locale.current`, `TimeZone.current`): a program would find the launcher's arguments,
/// bundle, language or zone there.
public enum LauncherService {
    /// The environment variable that, set, asks the launcher to load AppexKit
    /// (``LoadableExecutable/appexKitLibrary``), which its loader finds through `LD_LIBRARY_PATH`.
    public static let loadAppexKit = "APPEX_LAUNCHER_LOADS_APPEX_KIT"

    /// Serves appexd on `socket` until appexd hangs up, having loaded AppexKit first if
    /// `loadingAppexKit`; returns the exit status.
    public static func run(socket: FileDescriptor, loadingAppexKit: Bool) -> Int32 {
        let channel = LauncherChannel(socket: socket)
        guard appex_become_subreaper() == 0 else { return fail(SystemError("prctl (PR_SET_CHILD_SUBREAPER)").description) }
        guard let runtime = appex_loaded_swift_runtime() else {
            return fail("no shared Swift runtime is loaded: appex-launcher must be linked to \(LoadableExecutable.runtimeLibrary), not statically")
        }
        var appexKit: String?
        if loadingAppexKit {
            var error: UnsafePointer<CChar>?
            guard let path = appex_load_global(LoadableExecutable.appexKitLibrary, &error) else {
                return fail("\(LoadableExecutable.appexKitLibrary) can't be loaded: \(error.map { String(cString: $0) } ?? "?")")
            }
            appexKit = String(cString: path)
        }
        var unreadable: UnsafePointer<CChar>?
        guard appex_thread_ids_find(&unreadable) >= 0 else {
            return fail("\(unreadable.map { String(cString: $0) } ?? "a loaded object") has no symbol table, so the thread ids a child "
                        + "inherits can't all be found; install the Swift runtime unstripped")
        }
        guard appex_program_path_find(&unreadable) == 0 else {
            return fail("\(unreadable.map { String(cString: $0) } ?? "libFoundation.so")'s symbol table doesn't say where it keeps the "
                        + "program's path, so a program's Bundle.main would be the launcher's; install the Swift runtime unstripped")
        }
        let exits = appex_child_exits_fd()
        guard exits >= 0 else { return fail(SystemError("signalfd").description) }
        let childExits = FileDescriptor(owning: exits)
        do {
            try channel.send(LauncherHello(runtime: String(cString: runtime), appexKit: appexKit))
            while true {
                let (orderArrived, childrenExited) = try wait(for: socket, or: childExits)
                if childrenExited { reapChildren(draining: childExits) }
                guard orderArrived else { continue }
                guard let (order, descriptors) = try channel.receiveOrder() else { return 0 }
                let (reply, handedOver) = launch(order, with: descriptors)
                try channel.send(reply, descriptors: handedOver)
            }
        } catch {
            return fail("appexd's socket failed: \(error)")
        }
    }

    /// Starts `order`'s program, and returns the reply with the descriptors to hand over.
    static func launch(_ order: LaunchOrder, with descriptors: [FileDescriptor]) -> (LaunchReply, [FileDescriptor]) {
        do throws(SystemError) {
            let launch = try order.launch(with: descriptors)
            guard launch.restrictions?.namespaces.contains(.pid) == true else {
                throw SystemError("launch", subject: "\(order.executable) without a pid namespace of its own, whose init would report how it ends",
                                  errno: EINVAL)
            }
            let argv = ([order.executable] + order.arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let process = try argv.withUnsafeBufferPointer { argv throws(SystemError) in
                var program = appex_loaded_program(path: argv[0], mainAddress: order.mainAddress, argc: Int32(argv.count - 1),
                                                   argv: UnsafeMutablePointer(mutating: argv.baseAddress), named: tellFoundationTheName)
                return try withUnsafeMutablePointer(to: &program) { program throws(SystemError) in
                    try launch.forkRunning(appex_run_loaded, context: UnsafeMutableRawPointer(program))
                }
            }
            return (LaunchReply(processID: process.processID), [process.descriptor] + (process.exitReport.map { [$0] } ?? []))
        } catch {
            return (LaunchReply(failure: error), [])
        }
    }

    /// In the child, before the program is loaded: Foundation reads the process's name from
    /// `/proc/self/exe`, which names the launcher, unless it is told.
    private static let tellFoundationTheName: @convention(c) (UnsafePointer<appex_loaded_program>?) -> Void = { program in
        guard let path = program?.pointee.path else { return }
        ProcessInfo.processInfo.processName = String(String(cString: path).split(separator: "/").last ?? "")
    }

    /// Waits until an order arrives (or appexd hangs up) or a child exits.
    private static func wait(for socket: FileDescriptor, or childExits: FileDescriptor) throws(SystemError) -> (Bool, Bool) {
        var entries = [pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: childExits.rawValue, events: Int16(POLLIN), revents: 0)]
        while poll(&entries, 2, -1) < 0 {
            guard errno == EINTR else { throw SystemError("poll") }
        }
        return (entries[0].revents != 0, entries[1].revents != 0)
    }

    /// Reaps every child that has exited: the namespaces' first processes, whose programs'
    /// statuses reach appexd through their exit reports, not through this.
    private static func reapChildren(draining childExits: FileDescriptor) {
        var buffer = [UInt8](repeating: 0, count: 128 * 8)
        while Glibc.read(childExits.rawValue, &buffer, buffer.count) > 0 {}
        while waitpid(-1, nil, WNOHANG) > 0 {}
    }

    private static func fail(_ message: String) -> Int32 {
        StandardError.write(line: "appex-launcher: \(message)")
        return 1
    }
}
