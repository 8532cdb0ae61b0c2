import AppexRegistry
import AppexSystem
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One attempt at a task: one HTTP exchange, streamed from the upload's file or to the
/// download's `.partial` file, and watched for a stall or a passed resource deadline.
struct TransferAttempt: Sendable {
    let live: LiveTransfer
    let client: HTTPClient
    let watchInterval: Duration
    /// The trusted folder every download's destination lies below (``TransferEngine/downloadsFolder``).
    let downloadsFolder: URL

    /// Makes the exchange and says how it ended. Never throws: every error is an outcome.
    func perform() async -> AttemptOutcome {
        await withTaskGroup(of: AttemptOutcome?.self) { group in
            group.addTask { await exchange() }
            group.addTask {
                await watch()
                return nil
            }
            // The exchange's outcome, or, if the watch stopped it, the interruption it reports.
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            let stopped = await group.next() ?? nil
            return stopped ?? .interrupted(live.interruption ?? .stopping)
        }
    }

    private func exchange() async -> AttemptOutcome {
        let task = live.task
        do {
            let outcome = switch task.kind {
            case .upload: try await upload(task)
            case .download: try await download(task)
            }
            if let interruption = live.interruption { return .interrupted(interruption) }
            return outcome
        } catch {
            if let interruption = live.interruption { return .interrupted(interruption) }
            if let refusal = Self.certificateRefusal(error, reaching: task.request.url) { return .impossible(refusal) }
            return .failed(Self.describe(error, reaching: task.request.url, for: task.kind))
        }
    }

    /// Returns when the attempt has stalled or outlived its task's resource deadline, having
    /// marked it so, or when cancelled.
    private func watch() async {
        let task = live.task
        // A timeout past a day is as good as none, and can't overflow.
        let timeout = Duration.milliseconds(Int64(min(max(task.request.timeout, 0), 86400) * 1000))
        while (try? await Task.sleep(for: watchInterval)) != nil {
            live.recordIfChanged()
            if Date() >= task.resourceDeadline {
                live.interrupt(.resourceTimeout)
                return
            }
            if live.idleTime > timeout {
                live.interrupt(.stalled(task.request.timeout))
                return
            }
        }
    }

    /// Sends the task's file as the request's body, and keeps the answer's status, header
    /// fields, and the first ``TransferTask/keptAnswerBytes`` of its body, beside the spooled
    /// file, for the delegate's `didReceive data`.
    private func upload(_ task: TransferTask) async throws -> AttemptOutcome {
        guard let bodyFile = task.bodyFile else { return .impossible(TransferFailure(.fileDoesNotExist, "the upload task has no file to send")) }
        let size: Int64
        do {
            let file = try AppexSystem.FileDescriptor.open(bodyFile.path)
            defer { file.close() }
            guard try file.isRegularFile() else { return .impossible(TransferFailure(.noPermissionsToReadFile, "the upload's file \(bodyFile.path) is not a regular file")) }
            size = Int64(try file.size())
        } catch {
            let code: URLError.Code = error.errno == ENOENT ? .fileDoesNotExist : .noPermissionsToReadFile
            return .impossible(TransferFailure(code, "the upload's file \(bodyFile.path) can't be read: \(error)"))
        }
        live.update { task in
            task.bytesSent = 0
            task.bytesExpectedToSend = size
        }
        var request = makeRequest(task)
        request.headers.replaceOrAdd(name: "Idempotency-Key", value: task.id.uuidString)
        let live = live
        request.body = .stream(FileChunks(path: bodyFile.path) { sent in live.update { $0.bytesSent = sent } }, length: .known(size))
        let response = try await client.execute(request, deadline: .distantFuture)
        live.update { $0.responseHeaders = Self.kept(response.headers) }
        // The answer's body is read to its end, so the connection can serve the next task. Its
        // start is kept beside the spooled file, in appexd's own folder; the rest is dropped,
        // and all of it if that file can't be written: the upload succeeded all the same.
        let answerFile = bodyFile.path + ".answer"
        var answer = try? AppexSystem.FileDescriptor.open(answerFile, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW)
        var kept: Int64 = 0
        for try await chunk in response.body {
            live.update { _ in }
            let room = Int(max(0, TransferTask.keptAnswerBytes - kept))
            guard room > 0, let file = answer else { continue }
            do {
                try chunk.withUnsafeReadableBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0.prefix(room))) }
                kept += Int64(min(room, chunk.readableBytes))
            } catch {
                file.close()
                answer = nil
            }
        }
        answer?.close()
        return .answered(statusCode: Int(response.status.code), retryAfter: Self.retryAfter(response),
                         location: answer == nil || kept == 0 ? nil : URL(fileURLWithPath: answerFile))
    }

    /// The answer's header fields, in order, but any that would take the kept ones past
    /// ``TransferTask/keptResponseHeaderBytes``: one huge field doesn't push out those after it.
    static func kept(_ headers: HTTPHeaders) -> [TransferTask.Request.Header] {
        var size = 0
        return headers.filter { header in
            let bytes = header.name.utf8.count + header.value.utf8.count
            guard size + bytes <= TransferTask.keptResponseHeaderBytes else { return false }
            size += bytes
            return true
        }.map { TransferTask.Request.Header($0.name, $0.value) }
    }

    /// Writes the answer's body to the `.partial` file, resuming what earlier attempts kept
    /// if the server allows, and moves it to the destination once whole.
    private func download(_ task: TransferTask) async throws -> AttemptOutcome {
        guard let file = PartialDownload(task, below: downloadsFolder) else {
            return .impossible(TransferFailure(.cannotCreateFile, "the download task has no destination"))
        }
        let folder: ConfinedFolder
        do {
            folder = try file.openFolder()
        } catch {
            return .impossible(error)
        }
        defer { folder.close() }
        let kept = file.keptBytes(in: folder)
        let resumable = kept > 0 ? task.validator : nil
        var request = makeRequest(task)
        if let resumable {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(kept)-")
            request.headers.replaceOrAdd(name: "If-Range", value: resumable)
        }
        let response = try await client.execute(request, deadline: .distantFuture)
        let status = Int(response.status.code)
        if TransferPolicy.retriedStatusCodes.contains(status) {
            // An error page, not the file: what is kept stays for the next attempt.
            return .answered(statusCode: status, retryAfter: Self.retryAfter(response), location: nil)
        }
        var start: Int64 = 0
        var length = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? -1
        if resumable != nil, status == 416 || status == 206 {
            guard status == 206, let range = response.headers.first(name: "Content-Range").flatMap(ContentRange.init), range.first == kept else {
                folder.removeFile(file.partialName)
                live.update { $0.validator = nil }
                live.record()
                return .failed(TransferFailure(.badServerResponse, "the server would not resume the download at byte \(kept); the next attempt starts over"))
            }
            start = kept
            length = range.length ?? -1
        } else if length >= 0 {
            length += start
        }
        live.update { task in
            task.bytesReceived = start
            task.bytesExpectedToReceive = length
            task.validator = response.headers.first(name: "ETag") ?? response.headers.first(name: "Last-Modified")
            task.responseHeaders = Self.kept(response.headers)
            // didResumeAtOffset: where a download made from resume data went on from, once.
            if task.resumesFrom != nil, task.resumedAtOffset == nil { task.resumedAtOffset = start }
        }
        // The validator must outlive this process, or what is kept can't be resumed.
        live.record()
        let output: AppexSystem.FileDescriptor
        do {
            output = try file.open(in: folder, resuming: start > 0)
        } catch {
            return .impossible(error)
        }
        defer { output.close() }
        var received = start
        for try await chunk in response.body {
            try file.write(chunk, to: output)
            received += Int64(chunk.readableBytes)
            let total = received
            live.update { $0.bytesReceived = total }
        }
        // A cancelled body stream ends as if complete; only the count tells.
        if let interruption = live.interruption { return .interrupted(interruption) }
        if length >= 0, received != length {
            return .failed(TransferFailure(.networkConnectionLost, "the connection closed after \(received) of \(length) bytes"))
        }
        try file.complete(output, in: folder)
        return .answered(statusCode: status, retryAfter: nil, location: file.destination)
    }

    private func makeRequest(_ task: TransferTask) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: task.request.url.absoluteString)
        request.method = HTTPMethod(rawValue: task.request.method)
        for header in task.request.headers {
            request.headers.add(name: header.name, value: header.value)
        }
        return request
    }

    private static func retryAfter(_ response: HTTPClientResponse) -> Duration? {
        response.headers.first(name: "Retry-After").flatMap { AppexTransferEngine.retryAfter($0) }
    }

    /// The server's certificate refused, if `error` is that refusal: no later attempt would
    /// trust it either, so the task fails at once, as URLSession's does.
    static func certificateRefusal(_ error: any Error, reaching url: URL) -> TransferFailure? {
        let server = serverName(url)
        let wayOut = "If a private certificate authority signed it, name a PEM file of that authority's certificate in SSL_CERT_FILE in appexd's environment."
        return switch error {
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            TransferFailure(.serverCertificateUntrusted, "the certificate of \(server) was not trusted: it names another server")
        case NIOSSLError.handshakeFailed(.sslError(let errors)) where "\(errors)".contains("CERTIFICATE_VERIFY_FAILED"):
            TransferFailure(.serverCertificateHasUnknownRoot, "the certificate of \(server) was not trusted: no trusted certificate authority signed it. \(wayOut)")
        default:
            nil
        }
    }

    /// An error as the attempt's failure: what happened to the connection, in words.
    static func describe(_ error: any Error, reaching url: URL, for kind: TransferTask.Kind) -> TransferFailure {
        let server = serverName(url)
        return switch error {
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            TransferFailure(.cannotConnectToHost, "\(server) refused the connection")
        case let error as IOError where error.errnoCode == ENETUNREACH || error.errnoCode == EHOSTUNREACH:
            TransferFailure(.cannotConnectToHost, "\(server) could not be reached: \(String(cString: strerror(error.errnoCode)))")
        case let error as IOError:
            TransferFailure(.networkConnectionLost, "the connection to \(server) failed: \(String(cString: strerror(error.errnoCode)))")
        case let error as NIOConnectionError where error.connectionErrors.isEmpty:
            TransferFailure(.cannotFindHost, "\(url.host ?? "the server")'s address could not be found")
        case let error as NIOConnectionError:
            TransferFailure(.cannotConnectToHost, "\(server) could not be connected to: \(error.connectionErrors.map { "\($0.error)" }.joined(separator: "; "))")
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            TransferFailure(.networkConnectionLost, "\(server) closed the connection before answering in full")
        case let error as HTTPClientError where error == .connectTimeout:
            TransferFailure(.timedOut, "\(server) could not be reached in 30 s")
        case let error as SystemError where kind == .upload:
            TransferFailure(.noPermissionsToReadFile, "the upload's file could not be read: \(error)")
        case let error as SystemError:
            TransferFailure(.cannotWriteToFile, "the download could not be written: \(error)")
        default:
            TransferFailure(.unknown, "the exchange with \(server) failed: \(error)")
        }
    }

    /// `host:port` of `url`, as the reasons name the server.
    private static func serverName(_ url: URL) -> String {
        "\(url.host ?? "the server")\(url.port.map { ":\($0)" } ?? "")"
    }
}
