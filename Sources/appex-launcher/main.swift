// appex-launcher: the process appexd forks sandboxed extensions from, with the shared Swift
// runtime and Foundation already loaded (docs/zygote.md). appexd starts it with its socket at
// descriptor 3, and APPEX_LAUNCHER_LOADS_APPEX_KIT set to load AppexKit first; it serves that
// socket until appexd hangs up.
import AppexLauncher
import AppexSystem
import Glibc

// From the environment, not the arguments: CommandLine keeps what it reads for the life of the
// process, so a program forked from here would find the launcher's arguments there.
let loadingAppexKit = getenv(LauncherService.loadAppexKit) != nil
exit(LauncherService.run(socket: FileDescriptor(owning: 3), loadingAppexKit: loadingAppexKit))
