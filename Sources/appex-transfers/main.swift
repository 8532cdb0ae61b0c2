// appex-transfers: performs a home's background transfers (docs/transfers.md). appexd starts
// it when there is work; it exits once none has been left for a while (APPEX_TRANSFERS_IDLE_MS,
// 30 s by default). SIGTERM and SIGINT stop it: the running attempts wait for the next one.
// HTTPS servers are verified against the system's certificate authorities, or against those
// in the PEM file SSL_CERT_FILE names, as OpenSSL and curl do.
import AppexCore
import AppexSystem
import AppexTransferEngine
import Dispatch
import Foundation

ProgramArguments(program: "appex-transfers", help: """
    appex-transfers: performs a home's background uploads and downloads, which outlive the
    extensions that start them (docs/transfers.md). appexd starts it when there is work; it exits
    once none has been left for a while. SIGTERM and SIGINT stop it: running attempts wait for the next one.

    Usage: appex-transfers [--help] [--version]

    Environment:
      APPEX_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR   the home, as for appexd
      APPEX_TRANSFERS_IDLE_MS     how long it waits with no work before it exits (default 30000)
      SSL_CERT_FILE               a PEM file of certificate authorities to trust instead of the system's
    `appex transfers` lists the transfers; it logs to transfers.log in the runtime folder.
    """).handle()

var worker = TransferWorker(home: .current)
if let trusted = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !trusted.isEmpty {
    worker.trustedCertificates = URL(fileURLWithPath: trusted)
}
if let idle = ProcessInfo.processInfo.environment["APPEX_TRANSFERS_IDLE_MS"].flatMap(Int.init) {
    worker.idleGrace = .milliseconds(idle)
}
let work = Task { try await worker.run() }
let stops = [SIGTERM, SIGINT].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number)
    source.setEventHandler { work.cancel() }
    source.resume()
    return source
}
do {
    if case .alreadyRunning(let pid) = try await work.value {
        StandardError.write(line: "appex-transfers: another process\(pid.map { " (pid \($0))" } ?? "") performs these transfers; nothing to do.")
    }
} catch {
    StandardError.write(line: "appex-transfers: \(error)")
    exit(1)
}
withExtendedLifetime(stops) {}
