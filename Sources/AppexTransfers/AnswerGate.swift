import AppexLocking
import Foundation

/// An in-process data task's answer body while its delegate decides what to do with the
/// answer (``URLSession/ResponseDisposition``), and after: Apple's delegates hear none of
/// the body before they allow it. The body comes on the transport's queue and the decision
/// on whatever thread the delegate calls back on; what the gate passes on, it passes under
/// its lock, so that the body and the end reach the delegate queue in order.
///
/// Apple's session stops reading while its delegate decides; FoundationNetworking can't, so
/// the body is held in memory, at most ``heldLimit`` bytes of it. A delegate that takes
/// longer than that much body to answer has its task ended with
/// `URLError.dataLengthExceedsMaximum`, rather than the process growing until its limit.
final class AnswerGate: Sendable {
    private enum Phase {
        /// The body goes to the delegate as it comes.
        case open
        /// The delegate is asked: the body waits, and so does the task's end if it came.
        case deciding(held: [Data], count: Int, ended: Ended?)
        /// The delegate cancelled the task: the body is dropped, and the task ends with the error.
        case refused(any Error)
        /// The rest of the body goes to a file, for the download task the data task became.
        case downloading(InProcessDownload)
    }

    /// How the transport ended the task.
    private struct Ended {
        var error: (any Error)?
    }

    private let phase = Locked<Phase>(.open)
    private let deliver: @Sendable (Data) -> Void
    private let finish: @Sendable ((any Error)?) -> Void
    private let cancel: @Sendable () -> Void

    /// How much of the body is held, at most, while the delegate decides: 8 MiB.
    static let heldLimit = 8 << 20

    /// A gate that gives the body to `deliver` and the task's end to `finish`, while it is
    /// open, and calls `cancel` to stop the transport's task when it holds too much.
    init(deliver: @escaping @Sendable (Data) -> Void, finish: @escaping @Sendable ((any Error)?) -> Void,
         cancel: @escaping @Sendable () -> Void) {
        self.deliver = deliver
        self.finish = finish
        self.cancel = cancel
    }

    /// The delegate is being asked: from now on the body waits for its answer.
    func hold() {
        phase.withLock { $0 = .deciding(held: [], count: 0, ended: nil) }
    }

    /// Part of the body came.
    func pass(_ data: Data) {
        let overflowed = phase.withLock { phase -> Bool in
            switch phase {
            case .open: deliver(data)
            case .deciding(var held, let count, let ended):
                guard count + data.count <= Self.heldLimit else {
                    phase = .refused(URLError(.dataLengthExceedsMaximum, userInfo: [
                        NSLocalizedDescriptionKey: "the delegate had not answered the response (urlSession(_:dataTask:didReceive:completionHandler:)) when more than \(Self.heldLimit >> 20) MiB of its body had come, which an in-process session holds at most",
                        NSLocalizedRecoverySuggestionErrorKey: "Call the completion handler when the response comes; decide on the headers, not the body.",
                    ]))
                    return true
                }
                held.append(data)
                phase = .deciding(held: held, count: count + data.count, ended: ended)
            case .refused: break
            case .downloading(let download): download.write(data)
            }
            return false
        }
        if overflowed { cancel() }
    }

    /// The transport ended the task, with `error` if it failed.
    func end(_ error: (any Error)?) {
        phase.withLock { phase in
            switch phase {
            case .open: finish(error)
            case .deciding(let held, let count, _): phase = .deciding(held: held, count: count, ended: Ended(error: error))
            case .refused(let refusal): finish(refusal)
            case .downloading(let download): download.end(error)
            }
        }
    }

    /// The delegate allowed the answer: what was held goes on, and the end if it came.
    func allow() {
        phase.withLock { phase in
            guard case .deciding(let held, _, let ended) = phase else { return }
            phase = .open
            held.forEach(deliver)
            if let ended { finish(ended.error) }
        }
    }

    /// The delegate cancelled the task: it ends with `error`. Whether the task was still
    /// waiting for the answer, and so is to be cancelled.
    func refuse(_ error: any Error) -> Bool {
        phase.withLock { phase in
            guard case .deciding(_, _, let ended) = phase else { return false }
            phase = .refused(error)
            if ended != nil { finish(error) }
            return ended == nil
        }
    }

    /// `dataTask` became a download: what was held, and the rest, go to `download`'s file.
    func becomeDownload(_ download: InProcessDownload, from dataTask: URLSessionDataTask) {
        phase.withLock { phase in
            guard case .deciding(let held, _, let ended) = phase else { return }
            phase = .downloading(download)
            download.begin(becoming: dataTask)
            held.forEach(download.write)
            if let ended { download.end(ended.error) }
        }
    }
}
