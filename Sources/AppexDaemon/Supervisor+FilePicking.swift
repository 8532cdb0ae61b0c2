import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation
import Glibc
import Synchronization

/// Files the user picks for an extension, as Powerbox gives them on Apple's systems: an
/// extension entitled to `com.apple.security.files.user-selected.read-only` asks (`PickFiles`
/// on its control channel), appexd asks the host of that request to show its picker, and
/// hands the extension a read-only descriptor of each file the user picked. The files' paths
/// stay closed to it: only the descriptors reach it.
extension Supervisor {
    func pickFiles(_ request: PickFiles, session: UInt64) {
        guard let record = state.withLock({ $0.processes[session] }) else { return }
        @Sendable func refuse(_ reason: String) {
            try? record.control.send(.pickedFiles(PickedFiles(call: request.call, reason: reason)))
        }
        guard record.installed.entitlements.userSelectedFilesReadOnly else {
            return refuse("\(record.installed.identifier) may not ask the user for files: its Entitlements.plist doesn't grant "
                + "\(Entitlements.Key.userSelectedFilesReadOnly)")
        }
        whenRunning(request.requestID, in: session) { [self] isRunning in
            guard isRunning else { return refuse("request \(request.requestID) is not running in \(record.installed.identifier)") }
            pickFiles(request, from: record, session: session, refuse: refuse)
        }
    }

    /// Asks the host of `record`'s request to pick the files `request` asks for, and hands
    /// the extension read-only descriptors of them.
    private func pickFiles(_ request: PickFiles, from record: ExtensionProcessRecord, session: UInt64,
                           refuse: @escaping @Sendable (String) -> Void) {
        guard let host = state.withLock({ $0.clients[record.hostID] }) else {
            return refuse("the host of request \(request.requestID) has gone")
        }
        guard host.version >= WireVersion.filePicking else {
            return refuse("the host of request \(request.requestID) offers no file picker: it speaks protocol version \(host.version), "
                + "and file picking needs \(WireVersion.filePicking)")
        }
        if let waiting = startAsking(for: session) { return refuse(waiting) }
        var asked = request
        asked.extensionIdentifier = record.installed.identifier
        asked.extensionName = record.installed.displayName
        Task {
            let answer: IncomingMessage
            do throws(ConnectionError) {
                answer = try await ask(through: host, for: session) { call in
                    asked.call = call
                    return .pickFiles(asked)
                }
            } catch {
                return refuse("the host could not show its file picker: \(error)")
            }
            guard case .pickedFiles(let picked) = answer.message else {
                return refuse("the host answered PickFiles with \(answer.message.name)")
            }
            let (files, descriptors, problems) = Self.readOnlyCopies(of: picked, in: answer)
            defer { descriptors.forEach { $0.close() } }
            if !problems.isEmpty {
                DaemonLog.write(line: "appexd: \(host.name) picked files for \(record.label) that were dropped: \(problems.joined(separator: "; "))")
            }
            let reason = files.isEmpty && !problems.isEmpty ? "none of the files the host picked could be handed over: \(problems.joined(separator: "; "))" : picked.reason
            try? record.control.send(.pickedFiles(PickedFiles(call: request.call, files: files, reason: reason)), descriptors: descriptors)
        }
    }

    /// Each regular file the host sent, opened again read-only through its descriptor, so
    /// the extension gets a description it can't write, whatever the host opened; with what
    /// was dropped, and why.
    private static func readOnlyCopies(of picked: PickedFiles, in answer: IncomingMessage)
        -> (files: [PickedFile], descriptors: [FileDescriptor], problems: [String]) {
        var files: [PickedFile] = []
        var descriptors: [FileDescriptor] = []
        var problems: [String] = []
        for file in picked.files {
            guard let sent = answer.descriptor(at: file.slot) else {
                problems.append("\(file.filename) names descriptor slot \(file.slot), but the answer carried \(answer.descriptors.count)")
                continue
            }
            guard (try? sent.isRegularFile()) == true else {
                problems.append("\(file.filename) is not a regular file")
                continue
            }
            do {
                let readOnly = try FileDescriptor.open("/proc/self/fd/\(sent.rawValue)", flags: O_RDONLY | O_NOCTTY)
                files.append(PickedFile(slot: descriptors.count, filename: file.filename, typeIdentifier: file.typeIdentifier))
                descriptors.append(readOnly)
            } catch {
                problems.append("\(file.filename) could not be opened read-only: \(error)")
            }
        }
        answer.descriptors.forEach { $0.close() }
        return (files, descriptors, problems)
    }
}
