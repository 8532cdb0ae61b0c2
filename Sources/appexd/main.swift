// appexd: the per-user daemon that will launch extensions and relay their requests.
//
// The request runtime is not built yet. Rather than pretend to serve, appexd says so and
// exits with EX_UNAVAILABLE, so nothing mistakes it for a working daemon.
import AppexCore
import Foundation

let home = AppexHome.current
FileHandle.standardError.write(Data("""
    appexd: the extension runtime is not available yet, so there is nothing to serve.
    Installed apps and queries work without it: see `appex --help`. (data: \(home.dataDirectory.path))

    """.utf8))
exit(69)
