import AppexHost
import AppexItems
import AppexLocking
import AppexWire
import Foundation

// AppexLoadHost COUNT ENTRY...
//
// One host process of the load and chaos tests. Makes COUNT requests, one after another, each
// to the extension of the next ENTRY (cycled). An ENTRY is IDENTIFIER=EXPECTATION:
//   completed    the extension echoes the request's text back;
//   cancelled    the host cancels the request once begun (the extension never answers);
//   crashed      the extension crashes in the request;
//   memory       appexd ends the extension for going over its memory limit.
// EXPECTATION+daemon also accepts the request's interruption because appexd went away, or a
// refusal to begin while it is away (the chaos test kills it).
// Each outcome comes through Apple's three blocks, and each request must get exactly one:
// none within 60 s is lost, a second is doubled. Prints, as JSON, each request's latency
// (begin to outcome, in ms), by what the request was expected to do, how many ended which
// way, and what went wrong.

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: AppexLoadHost COUNT IDENTIFIER=EXPECTATION...\n".utf8))
    exit(2)
}
let plan = arguments.dropFirst(2).map { entry -> (identifier: String, expectation: String) in
    let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
    return (parts[0], parts.count == 2 ? parts[1] : "completed")
}

/// How a request ended, in a word and with its detail, and what an interruption's message said.
struct Ending: Sendable {
    var kind: String
    var detail: String
    var message = ""
}

/// Every outcome each request was given, and a wait for the first.
final class Outcomes: Sendable {
    private let state = Locked<(endings: [UUID: [Ending]], waiting: [UUID: CheckedContinuation<Ending?, Never>])>(([:], [:]))

    func record(_ request: UUID, _ ending: Ending) {
        let waiter = state.withLock { state -> CheckedContinuation<Ending?, Never>? in
            state.endings[request, default: []].append(ending)
            return state.waiting.removeValue(forKey: request)
        }
        waiter?.resume(returning: ending)
    }

    /// The first ending of `request`, or nil if none came within `seconds`.
    func first(of request: UUID, within seconds: Double) async -> Ending? {
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            state.withLock { $0.waiting.removeValue(forKey: request) }?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Ending? in
                if let first = state.endings[request]?.first { return first }
                state.waiting[request] = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }

    var counts: [UUID: Int] { state.withLock { $0.endings.mapValues(\.count) } }
}

/// Begins a request, with the asynchronous form (the synchronous one would block this thread).
func begin(_ target: NSExtension, _ items: [NSExtensionItem]) async throws(ErrorInfo) -> UUID {
    try await target.beginExtensionRequest(withInputItems: items)
}

let outcomes = Outcomes()
var extensions: [String: NSExtension] = [:]
for identifier in Set(plan.map(\.identifier)) {
    let found = try await NSExtension.extension(withIdentifier: identifier)
    found.requestCompletionBlock = { id, items in
        outcomes.record(id, Ending(kind: "completed", detail: items.first?.attributedContentText?.string ?? "(no text)"))
    }
    found.requestCancellationBlock = { id, error in
        let error = error as NSError
        outcomes.record(id, Ending(kind: "cancelled", detail: "\(error.domain) \(error.code)"))
    }
    found.requestInterruptionBlock = { [found] id in
        let interruption = found.interruption(forRequestIdentifier: id)
        outcomes.record(id, Ending(kind: "interrupted", detail: interruption.map { "\($0.reason)" } ?? "no reason", message: interruption?.message ?? ""))
    }
    extensions[identifier] = found
}

var latencies: [String: [Double]] = [:]
var ended: [String: Int] = [:]
var wrong: [String] = []
var lost = 0
var requests: [UUID] = []
for index in 0..<count {
    let (identifier, entry) = plan[index % plan.count]
    let expectation = entry.replacingOccurrences(of: "+daemon", with: "")
    let daemonMayGo = entry.hasSuffix("+daemon")
    let text = "request \(index) of \(ProcessInfo.processInfo.processIdentifier)"
    let item = NSExtensionItem()
    item.attributedContentText = NSAttributedString(string: text)
    let started = ContinuousClock.now
    let request: UUID
    do {
        request = try await begin(extensions[identifier]!, [item])
    } catch {
        ended["refused", default: 0] += 1
        if !daemonMayGo { wrong.append("\(index): \(identifier) refused to begin: \(error)") }
        continue
    }
    requests.append(request)
    if expectation == "cancelled" { extensions[identifier]!.cancelExtensionRequest(withIdentifier: request) }
    guard let ending = await outcomes.first(of: request, within: 60) else {
        lost += 1
        wrong.append("\(index): \(identifier) got no outcome within 60 s")
        continue
    }
    let elapsed = ContinuousClock.now - started
    latencies[expectation, default: []].append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    let expected = switch expectation {
    case "completed": ending.kind == "completed" && ending.detail == text
    case "cancelled": ending.kind == "cancelled" && ending.detail == "\(NSCocoaErrorDomain) \(NSUserCancelledError)"
    case "crashed": ending.kind == "interrupted" && ending.detail.hasPrefix("crashed")
    case "memory": ending.kind == "interrupted" && ending.detail == "\(ExtensionInterruption.Reason.memoryLimitExceeded(limitBytes: 0, measuredBytes: 0))"
    default: false
    }
    let daemonWent = daemonMayGo && ending.kind == "interrupted" && ending.detail == "\(ExtensionInterruption.Reason.daemonGone)"
    let right = expected || daemonWent
    ended[daemonWent ? "daemonGone" : ending.kind, default: 0] += 1
    if !right { wrong.append("\(index): \(identifier) expected \(expectation), ended \(ending.kind): \(ending.detail) (\(ending.message))") }
}
// A late second outcome of the last requests would come now.
try await Task.sleep(for: .milliseconds(500))
let counts = outcomes.counts
let doubled = requests.filter { (counts[$0] ?? 0) > 1 }.count
let report: [String: Any] = ["latenciesMilliseconds": latencies, "ended": ended, "wrong": Array(wrong.prefix(20)),
                             "wrongCount": wrong.count, "lost": lost, "doubled": doubled]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
