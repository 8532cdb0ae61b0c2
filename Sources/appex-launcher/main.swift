// appex-launcher: the process appexd forks sandboxed extensions from, with the shared Swift
// runtime and Foundation already loaded (docs/zygote.md). appexd starts it with its socket at
// descriptor 3; it serves that socket until appexd hangs up.
import AppexLauncher
import AppexSystem
import Glibc

exit(LauncherService.run(socket: FileDescriptor(owning: 3)))
