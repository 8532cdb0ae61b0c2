import AppexBrowser
import AppexCore
import Foundation
import Glibc

// appex-browser: the native messaging host that Chromium and Firefox start for the Appex
// browser extension. It reads length-prefixed JSON messages on standard input and writes
// its replies on standard output, which carries nothing else (docs/browser.md).

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--help" || arguments.first == "-h" {
    print("""
        usage: appex-browser [ORIGIN | MANIFEST EXTENSION-ID]

        The native messaging host of the Appex browser extension. The browser starts it and \
        speaks to it on standard input and output; run `appex browser install` to set it up.
        """)
    exit(0)
}
if arguments.first == "--version" {
    print("appex-browser \(BrowserExtension.version)")
    exit(0)
}

// Chromium names the calling extension's origin, and Firefox the manifest and the calling
// extension's ID. The manifests allow only the Appex extension; a host started for another
// is refused here too.
let caller = arguments.first { $0.hasPrefix("chrome-extension://") } ?? (arguments.count >= 2 ? arguments[1] : nil)
if let caller, caller != BrowserExtension.chromiumOrigin, caller != BrowserExtension.firefoxID {
    FileHandle.standardError.write(Data("appex-browser: \(caller) is not the Appex browser extension; only it may use this host\n".utf8))
    exit(2)
}

signal(SIGPIPE, SIG_IGN)
let channel = NativeMessageChannel()
let host = BrowserHost(version: BrowserExtension.version, send: channel.write)
await host.serve(channel.frames(), handled: channel.handled)
exit(0)
