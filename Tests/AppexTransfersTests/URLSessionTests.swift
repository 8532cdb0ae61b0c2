@testable import AppexTransfers
import AppexLocking
import AppexWire
import Foundation
import Testing

/// The background session API's own behaviour, where no appexd is needed: requests, the
/// configuration, the errors, and a session that is invalid from the start.
struct URLSessionTests {
    @Test func headerFieldsAreFoundAndReplacedWithoutRegardToCase() {
        var request = URLRequest(url: URL(string: "https://example.com/upload")!)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.setValue("video/mp4", forHTTPHeaderField: "content-type")
        #expect(request.allHTTPHeaderFields == ["content-type": "video/mp4"])
        #expect(request.value(forHTTPHeaderField: "CONTENT-TYPE") == "video/mp4")
        request.addValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        request.addValue("br", forHTTPHeaderField: "accept-encoding")
        #expect(request.value(forHTTPHeaderField: "Accept-Encoding") == "gzip,br")
        request.setValue(nil, forHTTPHeaderField: "CONTENT-type")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(request.httpMethod == "GET")
    }

    @Test func aSessionCopiesItsConfiguration() {
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.uploads")
        #expect(configuration.timeoutIntervalForRequest == 60 && configuration.timeoutIntervalForResource == 7 * 24 * 3600)
        configuration.sharedContainerIdentifier = "group.com.example"
        let copy = configuration.copy()
        configuration.sharedContainerIdentifier = "group.other"
        #expect(copy.identifier == "com.example.uploads" && copy.sharedContainerIdentifier == "group.com.example")
    }

    /// Apple's flags start at Apple's documented defaults, and a session's copy keeps what was set.
    @Test func applesFlagsHaveApplesDefaultsAndAreCopied() {
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.uploads")
        #expect(configuration.sessionSendsLaunchEvents && !configuration.isDiscretionary && configuration.allowsCellularAccess)
        #expect(!configuration.waitsForConnectivity && configuration.allowsExpensiveNetworkAccess && configuration.allowsConstrainedNetworkAccess)
        #expect(configuration.httpMaximumConnectionsPerHost == 6)
        configuration.isDiscretionary = true
        configuration.sessionSendsLaunchEvents = false
        let copy = configuration.copy()
        configuration.isDiscretionary = false
        #expect(copy.isDiscretionary && !copy.sessionSendsLaunchEvents)
    }

    @Test(arguments: [(-1.0, 0 as UInt64), (.nan, 0), (.infinity, 0), (0.25, 250), (86_400, 86_400_000), (1e300, 1_000_000_000_000_000)])
    func timeoutsReachTheWireInMillisecondsWithinBounds(seconds: Double, milliseconds: UInt64) {
        #expect(URLSession.milliseconds(seconds) == milliseconds)
    }

    @Test func appexdsErrorsKeepTheirDomainCodeAndWords() throws {
        let inUse = TransferErrors.error(ErrorInfo(domain: URLErrorDomain.name, code: URLErrorDomain.backgroundSessionInUseByAnotherProcess,
                                                   message: "in use by helper (pid 7)", recoverySuggestion: "Invalidate it there."))
        let urlError = try #require(inUse as? URLError)
        #expect(urlError.code == .backgroundSessionInUseByAnotherProcess)
        #expect((inUse as NSError).localizedDescription == "in use by helper (pid 7)")
        #expect((inUse as NSError).localizedRecoverySuggestion == "Invalidate it there.")
        let refused = TransferErrors.error(AppexErrorDomain.runtimeError(12, "not entitled"))
        #expect((refused as NSError).domain == AppexErrorDomain.runtime && (refused as NSError).code == 12)
    }

    @Test(arguments: [("completed", -1004, nil), ("cancelled", -999, URLError.Code.cancelled), ("failed", -1004, URLError.Code.cannotConnectToHost),
                      ("failed", 0, URLError.Code.unknown)])
    func aTaskEndsWithAnErrorOnlyWithoutAnAnswer(state: String, recorded: Int, code: URLError.Code?) {
        var info = TransferTaskInfo(taskIdentifier: 1, id: UUID().uuidString, kind: "upload", url: "https://example.com/", method: "PUT", state: state)
        info.error = "gave up after 5 attempts: example.com:443 refused the connection"
        info.errorCode = recorded
        let error = TransferErrors.completion(of: info)
        #expect((error as? URLError)?.code == code)
        if state == "failed" { #expect((error as NSError?)?.localizedDescription == info.error) }
    }

    @Test func aSessionWithoutASharedContainerIsInvalidAndItsTasksFail() async throws {
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.uploads")
        let delegate = RecordingDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.downloadTask(with: URL(string: "https://example.com/file")!)
        #expect(task.state == .suspended && task.taskIdentifier == 0)
        task.resume()
        for _ in 0..<400 where task.state != .completed {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(task.state == .completed && (task.error as? URLError)?.code == .backgroundSessionRequiresSharedContainer,
                "a task resumed on it completes with the reason")
        #expect(delegate.heard.withLock { $0 } == ["invalid -995"], "the delegate heard why, and was let go before the task")
        #expect(session.delegate == nil, "an invalidated session lets go of its delegate")
    }
}

/// Records what a session tells it, for the tests.
final class RecordingDelegate: URLSessionTaskDelegate {
    let heard = Locked<[String]>([])

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        heard.withLock { $0.append("invalid \((error as NSError?)?.code ?? 0)") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        heard.withLock { $0.append("completed \(task.taskIdentifier) with \((error as NSError?)?.code ?? 0)") }
    }
}

/// Apple's scheduling hints on a task: kept as set, within their ranges.
struct TaskHintTests {
    @Test func aTasksHintsAreKeptAsSetAndItsPriorityWithinItsRange() {
        let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.hints")
        let session = URLSession(configuration: configuration)
        let task = session.downloadTask(with: URL(string: "https://example.com/a")!)
        #expect(task.priority == URLSessionTask.defaultPriority && URLSessionTask.lowPriority < URLSessionTask.highPriority)
        task.priority = 2
        #expect(task.priority == 1)
        #expect(task.countOfBytesClientExpectsToReceive == NSURLSessionTransferSizeUnknown)
        task.countOfBytesClientExpectsToReceive = 4096
        task.earliestBeginDate = Date(timeIntervalSince1970: 1_900_000_000)
        #expect(task.countOfBytesClientExpectsToReceive == 4096 && task.earliestBeginDate?.timeIntervalSince1970 == 1_900_000_000)
        #expect(task.progress.totalUnitCount == -1 && task.progress.completedUnitCount == 0)
    }
}
