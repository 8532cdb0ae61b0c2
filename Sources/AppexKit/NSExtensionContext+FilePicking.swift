public import AppexCore
public import AppexItems
import AppexIPC
import AppexSystem
import AppexSession
import AppexWire
import Foundation

extension NSExtensionContext {
    /// Asks the user to pick files, in the host's picker, and returns them as item
    /// providers: what Powerbox's Open dialog gives a sandboxed process on Apple's systems.
    ///
    /// Needs `com.apple.security.files.user-selected.read-only` in the extension's
    /// Entitlements.plist. Each file arrives as a read-only descriptor behind its provider,
    /// loaded as data, a file or an item like any attachment; its path stays closed to the
    /// extension, which reads the files picked and nothing else.
    ///
    /// - Throws: `CocoaError(.userCancelled)` if the user cancelled; an error in
    ///   `AppexRuntimeErrorDomain` (code 11) saying why if no picker could be shown: the
    ///   entitlement is missing, or the host offers none.
    public func pickFiles(message: String = "", allowedContentTypes: [UTType] = [], allowsMultipleSelection: Bool = false)
        async throws -> [NSItemProvider] {
        let asked = PickFiles(call: 0, requestID: requestIdentifier, message: message,
                              allowedTypes: allowedContentTypes.map(\.identifier), allowsMultiple: allowsMultipleSelection)
        let answer: IncomingMessage
        do throws(ConnectionError) {
            answer = try await runtime.control.call { call in
                var numbered = asked
                numbered.call = call
                return .pickFiles(numbered)
            }
        } catch {
            throw AppexErrorDomain.runtimeError(11, "appexd could not be asked for files: \(error)").nsError
        }
        guard case .pickedFiles(let picked) = answer.message else {
            throw AppexErrorDomain.runtimeError(7, "appexd answered PickFiles with \(answer.message.name)").nsError
        }
        guard !picked.files.isEmpty else {
            if picked.reason.isEmpty { throw CocoaError(.userCancelled) }
            throw AppexErrorDomain.runtimeError(11, picked.reason).nsError
        }
        return try picked.files.enumerated().map { index, file in
            let size = (try? answer.descriptor(at: file.slot)?.size()) ?? 0
            let payload = try ReceivedPayload(.descriptor(slot: file.slot, length: size, filename: file.filename), in: answer, from: .host)
            let attachment = WireAttachment(providerID: UInt64(index), suggestedName: file.filename,
                                            representations: [WireRepresentation(typeIdentifier: file.typeIdentifier, kind: .file)])
            return RemoteProvider.make(attachment) { _, completion in completion(.success(payload)) }
        }
    }
}
