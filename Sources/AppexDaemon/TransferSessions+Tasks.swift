import AppexCore
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// The calls an attached process makes on its session's tasks: create, cancel, acknowledge.
extension TransferSessions {
    /// The longest `timeoutIntervalForRequest` a task may ask for: a day.
    static let longestRequestTimeout: UInt64 = 86_400_000
    /// The longest `timeoutIntervalForResource` a task may ask for: 30 days.
    static let longestResourceTimeout: UInt64 = 30 * 86_400_000

    /// Makes the task `create` asks for in the caller's session, and wakes the transfers'
    /// process. An upload carries its file, the one descriptor in `files`, which is linked
    /// into the spool, or copied if it can't be; a download carries none.
    func create(_ create: TransferCreate, files: [FileDescriptor], by caller: Caller) throws(ErrorInfo) -> TransferTaskInfo {
        let (key, attachment) = try attachment(of: caller, to: create.sessionIdentifier)
        guard let kind = TransferTask.Kind(rawValue: create.kind) else {
            throw Self.refusal("a task is an upload or a download, not \"\(create.kind)\"")
        }
        guard files.count <= 1 else { throw Self.refusal("a task carries at most one file, an upload's; this one came with \(files.count)") }
        let file = files.first
        let request = try Self.request(of: create, kind: kind)
        let id = UUID()
        var bodyFile: URL?
        var destination: URL?
        switch kind {
        case .upload:
            guard let file else { throw Self.refusal("an upload task carries its file; this one came with none") }
            bodyFile = try spool(file, as: id)
        case .download:
            guard file == nil else { throw Self.refusal("a download task carries no file") }
            destination = home.groupContainer(for: attachment.group).appendingPathComponent("Library/Caches/Transfers/\(id.uuidString)")
        }
        let resourceTimeout = create.resourceTimeoutMilliseconds == 0 ? TransferTask.defaultResourceTimeout : TimeInterval(create.resourceTimeoutMilliseconds) / 1000
        var task = TransferTask(id: id, appIdentifier: key.app, sessionIdentifier: key.session, groupIdentifier: attachment.group,
                                owner: attachment.bundle.identifier, kind: kind, request: request, bodyFile: bodyFile, destination: destination,
                                resourceTimeout: resourceTimeout, sendsLaunchEvents: !create.sendsNoLaunchEvents)
        if create.earliestBeginMilliseconds > 0 {
            // earliestBeginDate: not before then, nor past the task's resource deadline, where it fails.
            let begin = Date(timeIntervalSince1970: TimeInterval(min(create.earliestBeginMilliseconds, UInt64(1) << 50)) / 1000)
            if begin > task.createdAt { task.notBefore = min(begin, task.resourceDeadline) }
        }
        let stored: TransferTask
        if !create.resumesTask.isEmpty {
            stored = try resume(task, from: create.resumesTask)
        } else {
            do {
                stored = try registry.addTransfer(task)
            } catch {
                if let bodyFile { try? FileManager.default.removeItem(at: bodyFile) }
                throw AppexErrorDomain.runtimeError(2, "the task could not be stored: \(error)")
            }
        }
        let info = TransferTaskInfo(stored)
        attachments.withLock { $0[key]?.told[id] = info }
        transfers.wake()
        return info
    }

    /// Makes `task`, a download, from the resume data naming `kept`: it takes over that
    /// ended download's request and kept bytes, whose `.partial` file becomes its own. The
    /// registry refuses resume data of another app, another group, or used or expired.
    private func resume(_ task: TransferTask, from kept: String) throws(ErrorInfo) -> TransferTask {
        guard task.kind == .download, let keptID = UUID(uuidString: kept) else {
            throw Self.refusal("the resume data is damaged: it names no download", recovery: "Pass the resume data a download's cancellation or failure gave, unchanged.")
        }
        let (stored, old): (TransferTask, TransferTask)
        do {
            (stored, old) = try registry.addResumedTransfer(task, from: keptID)
        } catch {
            throw Self.refusal(error.message, recovery: error.hint.map { $0.prefix(1).uppercased() + $0.dropFirst() + "." } ?? "")
        }
        // Both lie in the group's Transfers folder, which extensions write: renamed without
        // following a link. Bytes that went meanwhile make the download start over.
        if let from = old.partialFile, let to = stored.partialFile, from.deletingLastPathComponent() == to.deletingLastPathComponent(),
           let folder = ConfinedFolder.relativePath(of: from.deletingLastPathComponent().path, below: home.groupsDirectory.path) {
            do throws(SystemError) {
                let transfers = try ConfinedFolder(home.groupsDirectory.path).folder(folder)
                defer { transfers.close() }
                try transfers.rename(from.lastPathComponent, to: to.lastPathComponent)
            } catch {
                DaemonLog.write(line: "appexd: the kept bytes of download \(old.id) could not be resumed, so \(stored.id) starts over: \(error)")
            }
        }
        return stored
    }

    /// Cancels the task `cancel` names (`URLSessionTask.cancel()`): it ends as cancelled once,
    /// a download's kept bytes go, unless `cancel(byProducingResumeData:)` keeps them for a
    /// download that may resume, and the transfers' process stops its attempt. A task that
    /// had ended stays as it ended.
    func cancel(_ cancel: TransferCancel, by caller: Caller) throws(ErrorInfo) -> TransferTaskInfo {
        let (key, _) = try attachment(of: caller, to: cancel.sessionIdentifier)
        let tasks = try read { () throws(RegistryError) in try registry.transfers(appIdentifier: key.app, session: key.session) }
        guard let task = tasks.first(where: { $0.taskIdentifier == Int(clamping: cancel.taskIdentifier) }) else {
            throw Self.refusal("background session \(key.session) of \(key.app) has no task \(cancel.taskIdentifier)")
        }
        let keeps = cancel.producesResumeData && task.mayResume && keptBytes(of: task) > 0
        let until = keeps ? Date().addingTimeInterval(TransferTask.resumeDataLifetime) : nil
        let ended = try read { () throws(RegistryError) in try registry.finishTransfer(task.id, .cancelled, failure: .cancelled, resumableUntil: until) }
        if ended {
            if !keeps, let partial = task.partialFile { ConfinedFolder.removeFile(atPath: partial.path, below: home.groupsDirectory.path) }
            transfers.wake()
        }
        return TransferTaskInfo(try read { () throws(RegistryError) in try registry.transfer(task.id) } ?? task)
    }

    /// The bytes a download keeps in its `.partial` file; 0 for an upload, or if the file
    /// can't be reached without following a link.
    private func keptBytes(of task: TransferTask) -> Int64 {
        guard let partial = task.partialFile,
              let folder = ConfinedFolder.relativePath(of: partial.deletingLastPathComponent().path, below: home.groupsDirectory.path),
              let transfers = try? ConfinedFolder(home.groupsDirectory.path).folder(folder) else { return 0 }
        defer { transfers.close() }
        return transfers.sizeOfFile(partial.lastPathComponent) ?? 0
    }

    /// Lets go of the kept bytes whose resume data expired, removing their files.
    func expireResumeData() {
        guard let expired = try? registry.expireResumeData() else { return }
        for task in expired {
            if let partial = task.partialFile { ConfinedFolder.removeFile(atPath: partial.path, below: home.groupsDirectory.path) }
        }
    }

    /// Forgets the events `acknowledge` says were delivered, with the files they handed over:
    /// a download's file the delegate left where it was, and an ended upload's spooled file and
    /// answer body.
    func acknowledge(_ acknowledge: TransferAcknowledge, by caller: Caller) throws(ErrorInfo) {
        let (key, _) = try attachment(of: caller, to: acknowledge.sessionIdentifier)
        let events = try read { () throws(RegistryError) in try registry.transferEvents(appIdentifier: key.app, session: key.session) }
        for event in events where event.sequence <= Int64(clamping: acknowledge.sequence) {
            switch event.kind {
            case .finishedDownloading:
                if let location = event.location { ConfinedFolder.removeFile(atPath: location.path, below: home.groupsDirectory.path) }
            case .completed:
                if let body = try? registry.transfer(event.taskID)?.bodyFile, body.deletingLastPathComponent().path == home.transfersSpoolDirectory.path {
                    try? FileManager.default.removeItem(at: body)
                    try? FileManager.default.removeItem(atPath: body.path + ".answer")
                }
            case .receivedData:
                if let answer = event.location, answer.deletingLastPathComponent().path == home.transfersSpoolDirectory.path {
                    try? FileManager.default.removeItem(at: answer)
                }
            }
        }
        try read { () throws(RegistryError) in
            try registry.acknowledgeTransferEvents(appIdentifier: key.app, session: key.session, through: Int64(clamping: acknowledge.sequence))
        }
    }

    func acknowledgeOrReport(_ acknowledge: TransferAcknowledge, _ caller: Caller) {
        do throws(ErrorInfo) {
            try self.acknowledge(acknowledge, by: caller)
        } catch {
            // The events stay, to be delivered again; the process may have gone, so say it here too.
            DaemonLog.write(line: "appexd: \(caller.name) (pid \(caller.pid)) could not acknowledge background session \(acknowledge.sessionIdentifier)'s events: \(error.message)")
            caller.send(.failure(Failure(error: error)))
        }
    }

    /// The request `create` describes, checked: an http or https URL, a method and header
    /// fields that can't smuggle another request, and timeouts within bounds.
    static func request(of create: TransferCreate, kind: TransferTask.Kind) throws(ErrorInfo) -> TransferTask.Request {
        guard let url = URL(string: create.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false
        else {
            throw refusal("\"\(create.url)\" is not an http or https URL with a host", recovery: "Background sessions transfer over HTTP and HTTPS only.")
        }
        let method = create.method.isEmpty ? (kind == .upload ? "POST" : "GET") : create.method
        guard isToken(method) else { throw refusal("\"\(method)\" is not an HTTP method") }
        for header in create.headers {
            guard isToken(header.name), isFieldValue(header.value) else {
                throw refusal("the header field \"\(header.name)\" is not a valid name and value")
            }
        }
        guard create.timeoutMilliseconds <= longestRequestTimeout else {
            throw refusal("timeoutIntervalForRequest is \(create.timeoutMilliseconds / 1000) s; at most a day (86400 s) is allowed")
        }
        guard create.resourceTimeoutMilliseconds <= longestResourceTimeout else {
            throw refusal("timeoutIntervalForResource is \(create.resourceTimeoutMilliseconds / 1000) s; at most 30 days (2592000 s) are allowed")
        }
        let timeout = create.timeoutMilliseconds == 0 ? TransferTask.Request.defaultTimeout : TimeInterval(create.timeoutMilliseconds) / 1000
        return TransferTask.Request(url: url, method: method, headers: create.headers.map { .init($0.name, $0.value) }, timeout: timeout)
    }

    /// Whether `text` is an HTTP token (RFC 9110): a method or a header field's name.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// Whether `text` may be a header field's value (RFC 9110): no control character but the
    /// tab, so no CR, LF or NUL to end the field early, and nothing the HTTP client would
    /// refuse at every attempt. By byte: as a Character, CR LF is one grapheme, equal neither
    /// to CR nor to LF.
    private static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
    }

    /// Keeps an upload's file in the spool, as `id`: linked, or copied if it can't be.
    private func spool(_ file: FileDescriptor, as id: UUID) throws(ErrorInfo) -> URL {
        guard (try? file.isRegularFile()) == true, (try? file.isOpenForReading()) == true else {
            throw Self.refusal("an upload's file must be a regular file open for reading", recovery: "Pass the file's URL, not a folder's, pipe's or socket's.")
        }
        let url = home.transfersSpoolDirectory.appendingPathComponent(id.uuidString)
        do {
            try FileManager.default.createDirectory(at: home.transfersSpoolDirectory, withIntermediateDirectories: true)
            do {
                try file.link(toNewFileAt: url.path)
            } catch {
                try file.copyContents(toNewFileAt: url.path)
            }
        } catch {
            // A copy cut short (no room left) leaves no part behind.
            try? FileManager.default.removeItem(at: url)
            throw AppexErrorDomain.runtimeError(12, "the upload's file could not be kept at \(url.path): \(error)",
                                                recovery: "Make room on the file system of \(home.dataDirectory.path).")
        }
        return url
    }
}
