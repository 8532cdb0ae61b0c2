import AppexHost
import AppexLocking
import Foundation

/// The Today view's answers when a widget asks to open a URL in an app: the user's, to a
/// question the view asks on the terminal (one at a time), or, without a terminal, the link
/// the user chose on the command line (`--open N`), which counts as their yes for that URL
/// alone.
final class LinkConfirmations: Sendable {
    private struct State {
        var asking: (request: URLOpenRequest, answer: CheckedContinuation<Bool, Never>)?
        /// URLs the user already said yes to, each good for one opening.
        var approved: [String] = []
        /// The last request asked about.
        var last: URLOpenRequest?
        /// Whether the view has closed: nobody is left to answer.
        var isClosed = false
    }

    /// Whether a question can be put to the user; without, only approved URLs open.
    let canAsk: Bool
    private let state = Locked(State())

    init(canAsk: Bool) {
        self.canAsk = canAsk
    }

    /// The question being asked, if any.
    var pending: URLOpenRequest? { state.withLock { $0.asking?.request } }

    /// The last request asked about, answered or not: which app would open which URL.
    var last: URLOpenRequest? { state.withLock { $0.last } }

    /// Says yes, in advance, to one opening of `url`.
    func approve(_ url: String) {
        state.withLock { $0.approved.append(url) }
    }

    /// The answer to `request`: yes if approved in advance; otherwise the user's, once they
    /// give it. A question asked while another is open, with nobody to ask, or after
    /// ``close()``, is a no.
    func ask(_ request: URLOpenRequest) async -> Bool {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Bool? in
                state.last = request
                if let index = state.approved.firstIndex(of: request.url.absoluteString) {
                    state.approved.remove(at: index)
                    return true
                }
                guard canAsk, !state.isClosed, state.asking == nil else { return false }
                state.asking = (request, continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Answers no to the open question, and to every one asked from now on: the view is
    /// closing, and a widget that asks while it closes must not wait for an answer.
    func close() {
        state.withLock { $0.isClosed = true }
        answer(false)
    }

    /// Answers the open question, if there is one.
    func answer(_ yes: Bool) {
        state.withLock { state in
            defer { state.asking = nil }
            return state.asking?.answer
        }?.resume(returning: yes)
    }
}
