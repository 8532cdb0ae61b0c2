public import AppexFileProvider
import AppexLocking
public import Foundation

/// A provider's principal class, called in this process: the replica's calls made on the
/// `NSFileProviderReplicatedExtension` itself, its completion handlers and observers turned
/// into async answers, each within a deadline.
///
/// Unchecked `Sendable`: Apple's contract has the extension accept calls from any thread at
/// once, and this makes nothing but those calls.
public final class InProcessProvider: ProviderCalls, @unchecked Sendable {
    public let domain: NSFileProviderDomainIdentifier
    private let provider: any NSFileProviderReplicatedExtension
    private let deadline: Duration
    /// The page size the host suggests to enumerators.
    public static let pageSize = 200

    public init(_ provider: any NSFileProviderReplicatedExtension, domain: NSFileProviderDomainIdentifier, deadline: Duration = .seconds(20)) {
        self.provider = provider
        self.domain = domain
        self.deadline = deadline
    }

    public func item(_ identifier: NSFileProviderItemIdentifier) async throws -> ProviderItem {
        try await ProviderAnswer.awaiting("item(for: \(identifier))", within: deadline) { finish in
            _ = provider.item(for: identifier, request: NSFileProviderRequest()) { item, error in
                finish(Result { () throws -> ProviderItem in
                    if let error { throw error }
                    guard let item else { throw ProviderError.refused("item(for: \(identifier)) answered neither an item nor an error") }
                    return ProviderItem(item)
                })
            }
        }
    }

    public func page(of container: NSFileProviderItemIdentifier, from page: NSFileProviderPage) async throws -> ProviderPage {
        let enumerator = try provider.enumerator(for: container, request: NSFileProviderRequest())
        defer { enumerator.invalidate() }
        return try await ProviderAnswer.awaiting("a page of \(container)", within: deadline) { finish in
            enumerator.enumerateItems(for: PageObserver(finish: finish), startingAt: page)
        }
    }

    public func fetchContents(of identifier: NSFileProviderItemIdentifier) async throws -> (contents: URL, item: ProviderItem) {
        try await ProviderAnswer.awaiting("fetchContents(for: \(identifier))", within: deadline) { (finish: @escaping @Sendable (Result<Fetched, any Error>) -> Void) in
            _ = provider.fetchContents(for: identifier, version: nil, request: NSFileProviderRequest()) { url, item, error in
                finish(Result { () throws -> Fetched in
                    if let error { throw error }
                    guard let url, let item else { throw ProviderError.refused("fetchContents(for: \(identifier)) answered no file or no item") }
                    return Fetched(contents: url, item: ProviderItem(item))
                })
            }
        }.pair
    }

    public func create(_ template: ProviderItem, fields: NSFileProviderItemFields, contents: URL?) async throws -> ProviderChange {
        try await ProviderAnswer.awaiting("createItem(basedOn: \(template.filename))", within: deadline) { finish in
            _ = provider.createItem(basedOn: ProvidedItem(template), fields: fields, contents: contents, options: [],
                                    request: NSFileProviderRequest()) { item, pending, fetch, error in
                finish(Self.change(item, pending, fetch, error))
            }
        }
    }

    public func modify(_ item: ProviderItem, baseVersion: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields,
                       contents: URL?) async throws -> ProviderChange {
        try await ProviderAnswer.awaiting("modifyItem(\(item.identifier))", within: deadline) { finish in
            _ = provider.modifyItem(ProvidedItem(item), baseVersion: baseVersion, changedFields: changedFields, contents: contents,
                                    options: [], request: NSFileProviderRequest()) { item, pending, fetch, error in
                finish(Self.change(item, pending, fetch, error))
            }
        }
    }

    public func delete(_ identifier: NSFileProviderItemIdentifier, baseVersion: NSFileProviderItemVersion) async throws {
        let _: Bool = try await ProviderAnswer.awaiting("deleteItem(identifier: \(identifier))", within: deadline) { finish in
            _ = provider.deleteItem(identifier: identifier, baseVersion: baseVersion, options: [.recursive], request: NSFileProviderRequest()) { error in
                finish(error.map { .failure($0) } ?? .success(true))
            }
        }
    }

    private static func change(_ item: (any NSFileProviderItem)?, _ pending: NSFileProviderItemFields, _ fetch: Bool,
                               _ error: (any Error)?) -> Result<ProviderChange, any Error> {
        if let error { return .failure(error) }
        return .success(ProviderChange(item: item.map(ProviderItem.init), stillPending: pending, shouldFetchContents: fetch))
    }

    private struct Fetched: Sendable {
        var contents: URL
        var item: ProviderItem
        var pair: (contents: URL, item: ProviderItem) { (contents, item) }
    }
}

/// Collects one page from an enumerator: every `didEnumerate` until `finishEnumerating`.
private final class PageObserver: NSObject, NSFileProviderEnumerationObserver, @unchecked Sendable {
    private let items = Locked<[ProviderItem]>([])
    private let finish: @Sendable (Result<ProviderPage, any Error>) -> Void

    init(finish: @escaping @Sendable (Result<ProviderPage, any Error>) -> Void) {
        self.finish = finish
    }

    var suggestedPageSize: Int { InProcessProvider.pageSize }

    func didEnumerate(_ updatedItems: [any NSFileProviderItemProtocol]) {
        let copied = updatedItems.map(ProviderItem.init)
        items.withLock { $0 += copied }
    }

    func finishEnumerating(upTo nextPage: NSFileProviderPage?) {
        finish(.success(ProviderPage(items: items.withLock { $0 }, next: nextPage)))
    }

    func finishEnumeratingWithError(_ error: any Error) {
        finish(.failure(error))
    }
}
