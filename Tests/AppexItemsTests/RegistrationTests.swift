@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct RegistrationTests {
    @Test func typesAreListedInRegistrationOrder() {
        let provider = NSItemProvider()
        provider.register(Data("b".utf8), as: "public.png")
        provider.register(Data("a".utf8), as: "public.jpeg")
        provider.registerItem(forTypeIdentifier: "public.url") { completion, _, _ in completion?(URL(string: "https://example.com")! as NSURL, nil) }
        provider.registerFileRepresentation(forTypeIdentifier: "com.adobe.pdf", visibility: .all) { _ in nil }
        #expect(provider.registeredTypeIdentifiers == ["public.png", "public.jpeg", "public.url", "com.adobe.pdf"])
        #expect(provider.registeredContentTypes.map(\.identifier) == ["public.png", "public.jpeg", "public.url", "com.adobe.pdf"])
        #expect(provider.representations().map(\.kind) == [.data, .data, .item, .file])
    }

    @Test func registeringATypeAgainReplacesItInPlace() async throws {
        let provider = NSItemProvider()
        provider.register(Data("old".utf8), as: "public.jpeg")
        provider.register(Data("png".utf8), as: "public.png")
        provider.register(Data("new".utf8), as: "PUBLIC.JPEG")
        #expect(provider.registeredTypeIdentifiers == ["PUBLIC.JPEG", "public.png"])
        #expect(try await provider.loadDataRepresentation(forTypeIdentifier: "public.jpeg") == Data("new".utf8))
    }

    @Test func fileOptionsSelectOpenInPlaceFiles() {
        let provider = NSItemProvider()
        provider.register(Data(), as: "public.plain-text")
        provider.register(file: URL(fileURLWithPath: "/nonexistent/a.pdf"), as: "com.adobe.pdf", fileOptions: .openInPlace)
        provider.register(file: URL(fileURLWithPath: "/nonexistent/b.png"), as: "public.png")
        #expect(provider.registeredTypeIdentifiers(fileOptions: []) == ["public.plain-text", "com.adobe.pdf", "public.png"])
        #expect(provider.registeredTypeIdentifiers(fileOptions: .openInPlace) == ["com.adobe.pdf"])
        #expect(provider.registeredContentTypesForOpenInPlace == [.pdf])
        #expect(provider.representations()[1].fileOptions == .openInPlace)
    }

    @Test func ownProcessRepresentationsDoNotCrossProcesses() {
        let provider = NSItemProvider()
        provider.register(Data(), as: "public.jpeg", visibility: .all)
        provider.register(Data(), as: "com.example.private", visibility: .ownProcess)
        provider.register(Data(), as: "public.png", visibility: .team)
        provider.register(Data(), as: "public.tiff", visibility: .group)
        #expect(provider.registeredTypeIdentifiers(crossingProcess: true) == ["public.jpeg", "public.png", "public.tiff"])
        #expect(provider.registeredTypeIdentifiers(crossingProcess: false).count == 4)
        #expect(provider.representations(crossingProcess: true).map(\.visibility) == [.all, .team, .group])
        #expect(provider.representations().map(\.visibility) == [.all, .ownProcess, .team, .group])
    }

    @Test func suggestedNameCanBeSetAndCleared() {
        let provider = NSItemProvider()
        #expect(provider.suggestedName == nil)
        provider.suggestedName = "Holiday"
        #expect(provider.suggestedName == "Holiday")
        provider.suggestedName = nil
        #expect(provider.suggestedName == nil)
    }

    @Test func representationLoadsRunTheHandlerDirectly() async throws {
        let provider = NSItemProvider()
        provider.register(Data("bytes".utf8), as: "public.jpeg")
        provider.register(file: URL(fileURLWithPath: "/tmp/x.pdf"), as: "com.adobe.pdf")
        provider.registerItem(forTypeIdentifier: "public.url") { completion, _, options in
            completion?((options?["answer"] as? String ?? "no options") as NSString, nil)
        }
        let representations = provider.representations()
        let payloads = await withTaskGroup(of: (Int, String).self) { group in
            for (index, representation) in representations.enumerated() {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        representation.load(options: ["answer": "42"]) { result in
                            let summary = switch result {
                            case .success(.data(let data)): "data \(String(decoding: data, as: UTF8.self))"
                            case .success(.file(let url, let coordinated)): "file \(url.path) \(coordinated)"
                            case .success(.item(let item)): "item \(item)"
                            case .failure(let error): "error \(error)"
                            }
                            continuation.resume(returning: (index, summary))
                        }
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(payloads == [0: "data bytes", 1: "file /tmp/x.pdf false", 2: "item 42"])
    }
}
