import AppexLocking
import AppexTestServer
@testable import AppexTransfers
import Foundation
import Testing

/// Resume data of an in-process session's downloads, against a real server: a download
/// cancelled to produce it, or cut off, goes on from its bytes with `Range` and `If-Range`;
/// resume data that names a file other than its own partial file is refused.
@Suite final class InProcessResumeDataTests {
    let server: LoopbackHTTPServer
    let session: URLSession
    let delegate = ResumingDelegate()

    init() async throws {
        server = try await LoopbackHTTPServer.start()
        session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
        let server = server
        Task { await server.stop() }
    }

    /// A download of `size` bytes that the server stalls after `after` of them, once they
    /// have all been written to its file.
    private func stalledDownload(size: Int, after: Int) async throws -> URLSessionDownloadTask {
        server.script("/bytes/\(size)", [.stall(after: after)])
        let task = session.downloadTask(with: server.url("/bytes/\(size)"))
        task.resume()
        #expect(await within30Seconds { self.delegate.seen.withLock { $0.written } == Int64(after) }, "\(delegate.seen.withLock { $0 })")
        return task
    }

    /// `task`'s resume data, from `cancel(byProducingResumeData:)`.
    private func cancelProducingResumeData(_ task: URLSessionDownloadTask) async -> Data? {
        await task.cancelByProducingResumeData()
    }

    @Test func aDownloadCancelledForResumeDataGoesOnFromItsBytes() async throws {
        let task = try await stalledDownload(size: 2_000_000, after: 600_000)
        let resumeData = try #require(await cancelProducingResumeData(task))
        #expect(await delegate.ended(1))
        let first = try #require(delegate.seen.withLock { $0.errors.first } as? URLError)
        #expect(first.code == .cancelled && first.downloadTaskResumeData == resumeData, "the cancellation carries the same resume data")
        let partial = try #require(InProcessResumeData(resumeData))
        #expect(partial.bytesReceived == 600_000 && FileManager.default.fileExists(atPath: partial.file.path), "the bytes are kept")

        let resumed = session.downloadTask(withResumeData: resumeData)
        resumed.resume()
        #expect(await delegate.ended(2))
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.resumedAt == [ResumingDelegate.Resumed(offset: 600_000, expected: 2_000_000)])
        #expect(seen.errors.count == 2 && seen.errors[1] == nil, "\(seen.errors)")
        #expect(seen.file?.count == 2_000_000 && GeneratedBytes.matches(seen.file ?? Data()), "the file is whole: its first bytes kept, the rest fetched")
        #expect(resumed.countOfBytesReceived == 2_000_000 && seen.written == 2_000_000)
        let asked = try #require(server.seen("/bytes/2000000").last)
        #expect(asked.headers["range"] == "bytes=600000-" && asked.headers["if-range"] == "\"bytes-2000000\"", "\(asked.headers)")
        #expect(!FileManager.default.fileExists(atPath: partial.file.path), "the file went once the delegate had it")
    }

    @Test func aDownloadCutOffEndsWithResumeDataInItsErrorAndTheAsyncFormResumesIt() async throws {
        server.script("/bytes/900000", [.drop(after: 300_000)])
        let error = await #expect(throws: URLError.self) { _ = try await self.session.download(from: self.server.url("/bytes/900000")) }
        let resumeData = try #require(error?.downloadTaskResumeData, "\(String(describing: error))")
        let (file, response) = try await session.download(resumeFrom: resumeData)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect((response as? HTTPURLResponse)?.statusCode == 206)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count == 900_000 && GeneratedBytes.matches(bytes))
    }

    @Test func aResumedDownloadThatFailsBeforeAnyAnswerKeepsItsBytesToResumeAgain() async throws {
        let task = try await stalledDownload(size: 1_000_000, after: 300_000)
        var resumeData = try #require(await cancelProducingResumeData(task))
        #expect(await delegate.ended(1))
        let kept = try #require(InProcessResumeData(resumeData))
        defer { try? FileManager.default.removeItem(at: kept.file) }
        // The server is out of reach for the first try: nothing is answered, nothing is lost.
        let refusing = try RefusingPort()
        defer { refusing.close() }
        var elsewhere = kept
        elsewhere.url = refusing.url("/bytes/1000000")
        let error = await #expect(throws: URLError.self) { _ = try await self.session.download(resumeFrom: elsewhere.data) }
        resumeData = try #require(error?.downloadTaskResumeData, "\(String(describing: error))")
        #expect(InProcessResumeData(resumeData) == elsewhere, "the same bytes, file and validator")
        #expect(FileManager.default.fileExists(atPath: kept.file.path))
        let (file, _) = try await session.download(resumeFrom: kept.data)
        defer { try? FileManager.default.removeItem(at: file) }
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count == 1_000_000 && GeneratedBytes.matches(bytes))
        #expect(server.seen("/bytes/1000000").last?.headers["range"] == "bytes=300000-")
    }

    @Test func aServerThatWontResumeStartsTheFileOver() async throws {
        let task = try await stalledDownload(size: 1_000_000, after: 400_000)
        let resumeData = try #require(await cancelProducingResumeData(task))
        #expect(await delegate.ended(1))
        server.script("/bytes/1000000", [.ignoreRange])
        session.downloadTask(withResumeData: resumeData).resume()
        #expect(await delegate.ended(2))
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.resumedAt == [ResumingDelegate.Resumed(offset: 0, expected: 1_000_000)])
        #expect(seen.file?.count == 1_000_000 && GeneratedBytes.matches(seen.file ?? Data()), "the kept bytes were not kept twice")
    }

    @Test func aPlainCancelGivesNoResumeDataAndKeepsNoFile() async throws {
        let task = try await stalledDownload(size: 1_000_000, after: 200_000)
        let file = try #require(task.inProcess?.download?.file)
        #expect(FileManager.default.fileExists(atPath: file.path))
        task.cancel()
        #expect(await delegate.ended(1))
        let cancelled = try #require(delegate.seen.withLock { $0.errors.first } as? URLError)
        #expect(cancelled.code == .cancelled && cancelled.downloadTaskResumeData == nil)
        #expect(await task.cancelByProducingResumeData() == nil, "an ended download has none")
        #expect(!FileManager.default.fileExists(atPath: file.path), "its file went")
    }

    @Test func resumeDataNamingAnyFileButItsOwnPartialFileIsRefusedAndTheFileIsUntouched() async throws {
        let task = try await stalledDownload(size: 1_000_000, after: 100_000)
        let resumeData = try #require(await cancelProducingResumeData(task))
        #expect(await delegate.ended(1))
        let genuine = try #require(InProcessResumeData(resumeData))
        defer { try? FileManager.default.removeItem(at: genuine.file) }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("settings.plist")
        try Data(repeating: 7, count: 200_000).write(to: victim)
        // A link with the partial files' name, in their folder, to the victim.
        let planted = FileManager.default.temporaryDirectory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: victim)
        defer { try? FileManager.default.removeItem(at: planted) }

        let forgeries: [(URL, String)] = [
            (victim, "not the partial file of an in-process download"),
            (planted, "can't be opened"),
            (FileManager.default.temporaryDirectory.appendingPathComponent("CFNetworkDownload_gone.tmp"), "can't be opened"),
        ]
        for (file, why) in forgeries {
            var forged = genuine
            forged.file = file
            let error = await #expect(throws: URLError.self) { _ = try await self.session.download(resumeFrom: forged.data) }
            #expect(error?.code == .cannotOpenFile && error?.localizedDescription.contains(why) == true, "\(String(describing: error))")
        }
        var tooLong = genuine
        tooLong.bytesReceived = 100_001
        let short = await #expect(throws: URLError.self) { _ = try await self.session.download(resumeFrom: tooLong.data) }
        #expect(short?.localizedDescription.contains("fewer than the 100001") == true, "\(String(describing: short))")
        let damaged = await #expect(throws: URLError.self) { _ = try await self.session.download(resumeFrom: Data("not a plist".utf8)) }
        #expect(damaged?.localizedDescription.contains("damaged") == true)
        let background = TransferResumeData(task: UUID().uuidString, url: server.url("/bytes/10"), bytesReceived: 5).data
        let elsewhere = await #expect(throws: URLError.self) { _ = try await self.session.download(resumeFrom: background) }
        #expect(elsewhere?.localizedDescription.contains("a background session's") == true, "\(String(describing: elsewhere))")

        #expect(try Data(contentsOf: victim) == Data(repeating: 7, count: 200_000), "the victim was not written or cut")
        #expect(server.seen("/bytes/1000000").count == 1, "no forgery made a request")
    }
}

/// A download delegate that records how its downloads went, in order.
final class ResumingDelegate: URLSessionDownloadDelegate, @unchecked Sendable {
    struct Resumed: Equatable {
        var offset: Int64
        var expected: Int64
    }

    struct Seen {
        var written: Int64 = 0
        var resumedAt: [Resumed] = []
        var file: Data?
        var errors: [(any Error)?] = []
    }

    let seen = Locked(Seen())

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        seen.withLock { $0.written = totalBytesWritten }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        seen.withLock { $0.resumedAt.append(Resumed(offset: fileOffset, expected: expectedTotalBytes)) }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let file = try? Data(contentsOf: location)
        seen.withLock { $0.file = file }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        seen.withLock { $0.errors.append(error) }
    }

    /// Whether `count` downloads have ended, within 30 seconds.
    func ended(_ count: Int) async -> Bool {
        await within30Seconds { self.seen.withLock { $0.errors.count } >= count }
    }
}
