import AppexItems
import AppexSession
import AppexSystem
import AppexWire
import Foundation
import Testing

/// The host's side of lazy loading, without a process: what it describes, what it serves,
/// and what it refuses.
@Suite(.timeLimit(.minutes(1))) struct ProviderServerTests {
    let server = ProviderServer()
    let request = UUID()
    let loads = Counter()
    let hiddenLoads = Counter()

    /// A provider with a data, a file, an item and a private representation.
    func provider() -> NSItemProvider {
        let provider = NSItemProvider()
        provider.suggestedName = "report"
        provider.register(Data("text".utf8), as: "public.plain-text", counting: loads)
        provider.registerFileRepresentation(forTypeIdentifier: "public.data", visibility: .all) { completion in
            completion(URL(fileURLWithPath: "/etc/hostname"), false, nil)
            return nil
        }
        provider.registerItem(forTypeIdentifier: "public.url") { completion, _, _ in completion?(URL(string: "https://example.com")! as NSURL, nil) }
        provider.registerDataRepresentation(forTypeIdentifier: "com.example.secret", visibility: .ownProcess) { [hiddenLoads] completion in
            hiddenLoads.increment()
            completion(Data("secret".utf8), nil)
            return nil
        }
        return provider
    }

    /// Describes one item with `provider()` for `request`, and returns its attachment.
    func describeOne() throws -> WireAttachment {
        let item = NSExtensionItem()
        item.attachments = [provider()]
        let wire = server.describe([item], for: request)
        return try #require(wire.first?.attachments.first)
    }

    /// Serves `load` and returns the one reply.
    func serve(_ load: LoadRequest) async throws -> (LoadResult, [FileDescriptor]) {
        try await bounded {
            await withCheckedContinuation { continuation in
                server.serve(load) { result, descriptors in continuation.resume(returning: (result, descriptors)) }
            }
        }
    }

    /// Serves `load`, which must be refused, and returns why; nil (and an issue) if it wasn't.
    func refusal(_ load: LoadRequest, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ErrorInfo? {
        let (result, descriptors) = try await serve(load)
        #expect(descriptors.isEmpty, sourceLocation: sourceLocation)
        guard case .error(let error) = result.payload else {
            Issue.record("expected a refusal, got \(result.payload)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    func load(_ type: String, from attachment: WireAttachment, request: UUID? = nil) -> LoadRequest {
        LoadRequest(loadID: 7, requestID: request ?? self.request, providerID: attachment.providerID, typeIdentifier: type, kind: .data)
    }

    @Test func theDescriptionLeavesOutWhatMustNotLeaveTheProcess() throws {
        let attachment = try describeOne()
        #expect(attachment.suggestedName == "report")
        #expect(attachment.representations.map(\.typeIdentifier) == ["public.plain-text", "public.data", "public.url"])
        #expect(attachment.representations.map(\.kind) == [.data, .file, .item])
        #expect(attachment.representations.allSatisfy { $0.payload == nil }, "nothing is loaded to describe it")
        #expect(loads.value == 0)
    }

    @Test func aLoadRunsTheHandlerOfTheTypeAskedForOnce() async throws {
        let attachment = try describeOne()
        let (result, descriptors) = try await serve(load("PUBLIC.PLAIN-TEXT", from: attachment))
        #expect(result.loadID == 7)
        #expect(result.payload == .data(Data("text".utf8)))
        #expect(descriptors.isEmpty)
        #expect(loads.value == 1)
    }

    @Test func aFileIsServedAsItsDescriptor() async throws {
        let attachment = try describeOne()
        let (result, descriptors) = try await serve(load("public.data", from: attachment))
        guard case .descriptor(0, _, "hostname") = result.payload else {
            Issue.record("expected the file in slot 0, got \(result.payload)")
            return
        }
        #expect(descriptors.count == 1)
    }

    @Test func aPrivateRepresentationIsNeverServed() async throws {
        let attachment = try describeOne()
        let error = try await refusal(load("com.example.secret", from: attachment))
        #expect(error?.domain == NSItemProvider.errorDomain && error?.code == NSItemProvider.ErrorCode.itemUnavailableError.rawValue)
        #expect(error?.message.contains("offers public.plain-text, public.data, public.url") == true)
        #expect(hiddenLoads.value == 0)
    }

    @Test func aTypeTheAttachmentDoesNotOfferIsRefused() async throws {
        let attachment = try describeOne()
        let error = try await refusal(load("public.jpeg", from: attachment))
        #expect(error?.code == NSItemProvider.ErrorCode.itemUnavailableError.rawValue)
        #expect(error?.message.contains("no public.jpeg representation") == true)
    }

    @Test func anUnknownProviderOrAnotherRequestsProviderIsRefused() async throws {
        let attachment = try describeOne()
        let unknown = LoadRequest(loadID: 8, requestID: request, providerID: attachment.providerID + 1000, typeIdentifier: "public.plain-text", kind: .data)
        for refused in [unknown, load("public.plain-text", from: attachment, request: UUID())] {
            let error = try await refusal(refused)
            #expect(error?.message.contains("is not part of request") == true)
        }
        #expect(loads.value == 0)
    }

    @Test func aReleasedRequestsProvidersAreGone() async throws {
        let attachment = try describeOne()
        server.release(request)
        let error = try await refusal(load("public.plain-text", from: attachment))
        #expect(error?.message.contains("is not part of request") == true)
        #expect(loads.value == 0)
    }

    @Test func aHandlersErrorIsServedAsThatError() async throws {
        let provider = NSItemProvider()
        provider.registerDataRepresentation(forTypeIdentifier: "public.data", visibility: .all) { completion in
            completion(nil, NSError(domain: "com.example.disk", code: 28, userInfo: [NSLocalizedDescriptionKey: "disk full"]))
            return nil
        }
        let item = NSExtensionItem()
        item.attachments = [provider]
        let attachment = try #require(server.describe([item], for: request).first?.attachments.first)
        let (result, _) = try await serve(load("public.data", from: attachment))
        #expect(result.payload == .error(ErrorInfo(domain: "com.example.disk", code: 28, message: "disk full")))
    }
    @Test func aPreviewImageIsDescribedAndServedWhenAskedFor() async throws {
        let previewed = provider()
        let made = Counter()
        previewed.previewImageHandler = { completion, _, _ in
            made.increment()
            completion?(Data("thumbnail".utf8) as NSData, nil)
        }
        let item = NSExtensionItem()
        item.attachments = [previewed, provider()]
        let attachments = try #require(server.describe([item], for: request).first?.attachments)
        #expect(attachments.map(\.preview?.typeIdentifier) == [WireRepresentation.previewTypeIdentifier, nil])
        #expect(made.value == 0, "described, not made")
        let load = LoadRequest(loadID: 1, requestID: request, providerID: attachments[0].providerID,
                               typeIdentifier: WireRepresentation.previewTypeIdentifier, kind: .item)
        let (result, _) = try await serve(load)
        guard case .data(let bytes) = result.payload else { Issue.record("\(result.payload)"); return }
        #expect(bytes == Data("thumbnail".utf8) && made.value == 1)
        var withoutPreview = load
        withoutPreview.providerID = attachments[1].providerID
        let refused = try await refusal(withoutPreview)
        #expect(refused?.code == NSItemProvider.ErrorCode.itemUnavailableError.rawValue)
    }
}

/// What another process names its attachment is a name a host may save under, never a path:
/// an Action returned `../../.bashrc` as a text part's name, and `appex action --output DIR`
/// wrote it outside `DIR`.
@Suite struct RemoteProviderNameTests {
    @Test(arguments: [("../../.bashrc", ".._.._.bashrc"), ("..", "item"), (".", "item"), ("", "item"), ("notes.txt", "notes.txt"),
                      ("/etc/passwd", "_etc_passwd")])
    func aSuggestedNameFromAnotherProcessIsAFileName(sent: String, kept: String) {
        let provider = RemoteProvider.make(WireAttachment(providerID: 1, suggestedName: sent, representations: [])) { _, _ in }
        #expect(provider.suggestedName == kept)
    }

}
