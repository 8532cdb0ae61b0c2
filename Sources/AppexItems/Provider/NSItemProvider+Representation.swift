public import AppexCore
import AppexLocking
public import Foundation
import Synchronization

extension NSItemProvider {
    /// One registered representation: its type, how it is produced, and who may load it.
    ///
    /// This is the hook a transport uses. To serve a local provider to another process, it
    /// lists ``NSItemProvider/representations(crossingProcess:)`` and calls ``load(options:completionHandler:)``
    /// on the one the peer asks for. To build a provider that stands for a remote one, it
    /// calls the registration methods with handlers that forward each load across.
    public struct Representation: Sendable {
        /// How a representation produces its content.
        public enum Kind: Sendable, Hashable {
            /// Registered with `registerDataRepresentation`: bytes.
            case data
            /// Registered with `registerFileRepresentation` or made from a file: a file URL.
            case file
            /// Registered with `registerItem` or made from a value: a ``NSItemProviderValue``.
            case item
        }

        /// What a representation's handler produced, before any coercion.
        public enum Payload: Sendable {
            /// Bytes from a data representation.
            case data(Data)
            /// A file from a file representation. The URL is valid only until the completion
            /// handler that receives it returns: open or copy the file there.
            case file(URL, coordinated: Bool)
            /// A value from an item representation.
            case item(any NSItemProviderValue)
        }

        /// The type identifier the representation was registered under.
        public let typeIdentifier: String
        /// Who may load the representation.
        public let visibility: NSItemProviderRepresentationVisibility
        /// How a file representation is handed over; empty for data and items.
        public let fileOptions: NSItemProviderFileOptions
        let loader: Loader

        enum Loader: Sendable {
            case data(DataLoadHandler)
            case file(FileLoadHandler)
            /// Apple's item handler, which gives a Foundation object.
            case object(LoadHandler)
            /// A Swift value's handler.
            case value(ValueLoadHandler)
            /// An item that can't be carried, and why.
            case unavailable(reason: String)
        }

        /// How the representation produces its content.
        public var kind: Kind {
            switch loader {
            case .data: .data
            case .file: .file
            case .object, .value, .unavailable: .item
            }
        }

        /// Whether this representation's type is `typeIdentifier` or conforms to it.
        ///
        /// Identifiers that are not well-formed type identifiers match only themselves,
        /// ignoring case.
        public func conforms(to typeIdentifier: String) -> Bool {
            if self.typeIdentifier.caseInsensitiveCompare(typeIdentifier) == .orderedSame { return true }
            guard let registered = UTType(self.typeIdentifier), let requested = UTType(typeIdentifier) else { return false }
            return registered.conforms(to: requested)
        }

        /// Runs the representation's handler, on the calling thread, and reports what it produced.
        ///
        /// The completion handler runs once, whatever the provider's handler does. A handler
        /// that finishes with neither a value nor an error, or a file handler that gives a
        /// URL that is not a file URL, is reported as an ``NSItemProviderError``; an error
        /// the handler gives is passed on unchanged. An item handler receives `options`; the
        /// others ignore them. Returns the progress the provider's handler returned, if any.
        @discardableResult
        public func load(
            options: [String: PropertyListValue]? = nil,
            completionHandler: @escaping @Sendable (Result<Payload, any Error>) -> Void
        ) -> Progress? {
            load(options: options, context: LoadContext(requested: typeIdentifier, registered: [typeIdentifier], representation: self),
                 completionHandler: completionHandler)
        }

        func load(
            options: [String: PropertyListValue]?,
            context: LoadContext,
            completionHandler: @escaping @Sendable (Result<Payload, any Error>) -> Void
        ) -> Progress? {
            let once = OnceFlag()
            let finish: @Sendable (Payload?, (any Error)?) -> Void = { payload, error in
                guard once.claim() else { return }
                if let error {
                    completionHandler(.failure(error))
                } else if let payload {
                    completionHandler(.success(payload))
                } else {
                    completionHandler(.failure(context.error(
                        .itemUnavailableError,
                        "the load handler for \(typeIdentifier) finished with neither a value nor an error;"
                            + " a provider's handler must pass one of them")))
                }
            }
            switch loader {
            case .data(let handler):
                return handler { data, error in finish(data.map(Payload.data), error) }
            case .file(let handler):
                return handler { url, coordinated, error in
                    if let url, !url.isFileURL, error == nil {
                        finish(nil, context.error(
                            .unexpectedValueClassError,
                            "the file representation for \(typeIdentifier) gave \(url.absoluteString), which is not a file URL;"
                                + " a file handler must give the URL of a local file"))
                    } else {
                        finish(url.map { Payload.file($0, coordinated: coordinated) }, error)
                    }
                }
            case .object(let handler):
                let typeIdentifier = typeIdentifier
                handler({ object, error in
                    guard error == nil, let object else { return finish(nil, error) }
                    guard let value = ItemValue(secureCoding: object) else {
                        return finish(nil, context.error(.unexpectedValueClassError, "the load handler for \(typeIdentifier) gave \(ItemValue.unsupported(object))"))
                    }
                    finish(.item(value.value), nil)
                }, nil, options?.foundationDictionary)
                return nil
            case .value(let handler):
                handler({ item, error in finish(item.map(Payload.item), error) }, options)
                return nil
            case .unavailable(let reason):
                finish(nil, context.error(.unexpectedValueClassError, reason))
                return nil
            }
        }
    }

    /// The registered representations, in registration order.
    ///
    /// When `crossingProcess` is `true`, the representations whose visibility is
    /// ``NSItemProviderRepresentationVisibility/ownProcess`` are left out: they must not be
    /// offered to another process.
    public func representations(crossingProcess: Bool = false) -> [Representation] {
        let all = state.withLock { $0.representations }
        return crossingProcess ? all.filter(\.visibility.mayCrossProcess) : all
    }
}
