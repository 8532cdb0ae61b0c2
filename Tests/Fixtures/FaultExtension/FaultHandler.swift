import AppexKit
import AppexSystem
import AppexTransfers
import AppexWire
import Foundation
import Synchronization

/// The principal class: serves each request as ``Fault/current`` says.
final class FaultHandler: NSObject, NSExtensionRequestHandling {
    /// The requests begun so far in this process, each with its own handler.
    private static let begun = Atomic(0)
    /// The requests this handler has begun, and the last one's context.
    private var requestsBegun = 0
    private var context: NSExtensionContext?

    func beginRequest(with context: NSExtensionContext) {
        let begun = Self.begun.add(1, ordering: .relaxed).newValue
        requestsBegun += 1
        switch Fault.current {
        case .echo:
            Task { await FaultHandler.echo(context) }
        case .describe:
            let item = NSExtensionItem()
            item.userInfo = ["types": (context.inputItems as! [NSExtensionItem]).flatMap { $0.attachments ?? [] }.map(\.registeredTypeIdentifiers)]
            context.completeRequest(returningItems: [item])
        case .image:
            Task {
                do {
                    let provider = (context.inputItems.first as? NSExtensionItem)?.attachments?.first ?? NSItemProvider()
                    let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.image.identifier)
                    let returned = NSItemProvider()
                    returned.registerDataRepresentation(forTypeIdentifier: UTType.jpeg.identifier, visibility: .all) { completion in
                        completion(data, nil)
                        return nil
                    }
                    let item = NSExtensionItem()
                    item.attachments = [returned]
                    await context.completeRequest(returningItems: [item])
                } catch {
                    context.cancelRequest(withError: error)
                }
            }
        case .uploadsInBackground:
            Self.uploadInBackground(context)
        case .crashInRequest:
            abort()
        case .crashInSecondRequest, .neverAnswersSecondRequest:
            if begun == 1 { Task { await FaultHandler.echo(context) } }
            if begun > 1, Fault.current == .crashInSecondRequest { abort() }
        case .crashAfterCompleting:
            context.completeRequest(returningItems: [Self.done]) { _ in abort() }
        case .crashAsItCompletes:
            let queued = Self.unreadBytesOnSession()
            Thread.detachNewThread { Self.crash(onceUnreadBytesExceed: queued) }
            context.completeRequest(returningItems: [Self.done])
        case .neverAnswers, .crashAtLaunch, .neverChecksIn, .checksInAsAnother, .compose, .composeHangsValidating, .composeGivesUp, .composeMalformedSheet, .composeTooManyItems, .composeDrivesTheTerminal,
             .widget, .widgetFails, .widgetHangsUpdating, .widgetTall, .widgetMalformedView, .widgetHugeView, .widgetTooManyViews:
            // The compose and widget faults are ComposeFault's and WidgetFault's; under this class they never answer.
            break
        case .writesControlCharacters:
            StandardError.write(line: "plain \u{1B}[31mred\u{1B}[0m\rappexd: com.example.faults.echo crashed: forged")
            context.completeRequest(returningItems: [])
        case .expiringActivity:
            let expiry = DispatchSemaphore(value: 0)
            ProcessInfo.processInfo.performExpiringActivity(withReason: "finishing the upload") { expired in
                if expired {
                    StandardError.write(line: "activity expired")
                    expiry.signal()
                    return
                }
                StandardError.write(line: "activity started")
                expiry.wait()
                StandardError.write(line: "activity stopped")
            }
            context.completeRequest(returningItems: [Self.done])
        case .observesHost:
            HostObserver.observe(context)
        case .returnsAStringAmongItems:
            let first = NSExtensionItem()
            first.attributedContentText = NSAttributedString(string: "first")
            let second = NSExtensionItem()
            second.attributedContentText = NSAttributedString(string: "second")
            context.completeRequest(returningItems: [first, "not an item", second])
        case .answersThroughItsHandler:
            self.context = context
            // The handler crosses to the main queue, where it began, held weakly.
            let held = WeakHandler(handler: self)
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) {
                guard let handler = held.handler, let context = handler.context else { return }
                let item = NSExtensionItem()
                item.attributedContentText = NSAttributedString(string: "handler \(handler.requestsBegun) of \(begun)")
                context.completeRequest(returningItems: [item])
            }
        case .opensURL:
            Task {
                let answer = await context.openURL(URL(string: "faultapp://action")!)
                let item = NSExtensionItem()
                item.attributedContentText = NSAttributedString(string: answer.opened ? "opened" : answer.reason)
                await context.completeRequest(returningItems: [item])
            }
        case .exceedsMemory:
            Thread.detachNewThread { Self.touchMemoryForever() }
        case .exceedsMemoryAtOnce:
            Thread.detachNewThread { Self.touchAtOnce(512 << 20) }
        case .mapsHugeAddressSpace:
            let size = 64 << 30
            let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            let item = NSExtensionItem()
            if mapping == MAP_FAILED {
                item.attributedContentText = NSAttributedString(string: "refused: \(String(cString: strerror(errno)))")
            } else {
                munmap(mapping, size)
                item.attributedContentText = NSAttributedString(string: "mapped")
            }
            context.completeRequest(returningItems: [item])
        case .garbageOnSession:
            Self.writeGarbage(to: 4)
        case .garbageOnSessionThenHang:
            Self.writeGarbage(to: 4)
            while true { sleep(1) }
        case .garbageOnControl:
            Self.writeGarbage(to: 3)
        case .partialFrameOnControl:
            let begun: [UInt8] = [64, 0, 0, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
            _ = begun.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
            while true { sleep(1) }
        case .attempts:
            Task {
                let provider = (context.inputItems.first as? NSExtensionItem)?.attachments?.first ?? NSItemProvider()
                let list = (try? await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)) ?? Data()
                var results: [String] = []
                for line in String(decoding: list, as: UTF8.self).split(separator: "\n").map(String.init) {
                    let result = switch line.split(separator: " ").first {
                    case "pick": await FaultHandler.pick(line, in: context)
                    case "openURL": await FaultHandler.openURL(line, in: context)
                    case "raw": FaultHandler.sendRaw(line, in: context)
                    case "preview": await FaultHandler.preview(of: provider)
                    default: FaultHandler.attempt(line)
                    }
                    results.append(result)
                }
                let item = NSExtensionItem()
                item.attributedContentText = NSAttributedString(string: results.joined(separator: "\n"))
                if results.contains(where: { $0.hasPrefix("preview ") }) {
                    // The answer's own attachment has a preview too, for the host to load.
                    let answer = NSItemProvider(object: "answered" as NSString)
                    answer.previewImageHandler = { completion, _, _ in completion?(Data("the extension's preview".utf8) as NSData, nil) }
                    item.attachments = [answer]
                }
                await context.completeRequest(returningItems: [item])
            }
        }
    }

    /// Tries one line of ``Fault/attempts``: "allowed", or "refused: " and the error.
    nonisolated private static func attempt(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return "unknown attempt \(line)" }
        let result: Int32
        switch parts[0] {
        case "read":
            result = open(parts[1], O_RDONLY | O_CLOEXEC)
            if result >= 0 { close(result) }
        case "write":
            result = open(parts[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            if result >= 0 { close(result) }
        case "ptrace":
            result = Int32(cPtrace(16 /* PTRACE_ATTACH */, pid_t(parts[1]) ?? 0, nil, nil))
        case "connect":
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(parts[1]).map { $0.bigEndian } ?? 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case "unix":
            return connectUnix(parts[1])
        case "getfd":
            // Another process's descriptor, copied: pidfd_open(PID), then pidfd_getfd(FD).
            let numbers = parts[1].split(separator: " ").compactMap { Int32($0) }
            guard numbers.count == 2 else { return "unknown attempt \(line)" }
            let pidfd = Int32(cSyscall(434 /* SYS_pidfd_open */, Int(numbers[0]), 0, 0))
            guard pidfd >= 0 else { return "refused: \(String(cString: strerror(errno)))" }
            defer { close(pidfd) }
            result = Int32(cSyscall(438 /* SYS_pidfd_getfd */, Int(pidfd), Int(numbers[1]), 0))
            if result >= 0 { close(result) }
        case "socketpair":
            var pair: [Int32] = [-1, -1]
            result = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
            pair.filter { $0 >= 0 }.forEach { close($0) }
        case "say":
            let text = parts[1].hasPrefix("-") ? String(repeating: "x", count: Int(parts[1].dropFirst()) ?? 0) : parts[1] + "\n"
            result = Int32(Array(text.utf8).withUnsafeBytes { write(2, $0.baseAddress, $0.count) })
        case "stat":
            var status = stat()
            result = stat(parts[1], &status)
        case "fork":
            return forkChildren(Int(parts[1]) ?? 0)
        case "type":
            // What this process's UTType knows of a type, as an extension's code would ask.
            guard let type = UTType(parts[1]), type.isDeclared else { return "undeclared" }
            return "declared, \(type.conforms(to: .data) ? "data" : "not data"), \(type.conforms(to: .text) ? "text" : "not text"), .\(type.preferredFilenameExtension ?? "")"
        case "extension":
            return UTType(filenameExtension: parts[1])?.identifier ?? "none"
        case "plist":
            // A property list holding an empty array, loaded as data, as a host loads one.
            let provider = NSItemProvider(item: NSDictionary(dictionary: [parts[1]: NSArray()]), typeIdentifier: UTType.propertyList.identifier)
            final class Loaded: @unchecked Sendable { var result: Result<Data, any Error>? }
            let loaded = Loaded()
            let done = DispatchSemaphore(value: 0)
            _ = provider.loadDataRepresentation(forTypeIdentifier: UTType.propertyList.identifier) { data, error in
                // Read only after the semaphore, which orders it after this write.
                loaded.result = data.map { .success($0) } ?? .failure(error ?? CocoaError(.fileReadUnknown))
                done.signal()
            }
            done.wait()
            switch loaded.result {
            case .success(let data)?: return String(decoding: data, as: UTF8.self).contains("<key>\(parts[1])</key>") ? "allowed" : "refused: not in the data"
            case .failure(let error)?: return "refused: \(error.localizedDescription)"
            case nil: return "refused: no answer"
            }
        case "defaults":
            // Arrays stored and read back in defaults, and written as a property list, as
            // extension code does: "stored [] [1, 2]", or a trap in a static program without
            // Foundation's bridging conformances.
            guard let defaults = UserDefaults(suiteName: parts[1]) else { return "refused: no defaults" }
            defaults.set([Int](), forKey: "none")
            defaults.set([1, 2], forKey: "some")
            let plist = try? PropertyListSerialization.data(fromPropertyList: ["tags": [String]()], format: .binary, options: 0)
            guard plist != nil else { return "refused: the property list was not written" }
            let none = (defaults.array(forKey: "none") as? [Int]).map { "\($0)" } ?? "nothing"
            let some = (defaults.array(forKey: "some") as? [Int]).map { "\($0)" } ?? "nothing"
            return "stored \(none) \(some)"
        case "group":
            guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: parts[1]) else {
                return "refused: no container"
            }
            var written = false
            var error: NSError?
            NSFileCoordinator().coordinate(writingItemAt: container.appendingPathComponent("from-extension.txt"), error: &error) { url in
                written = FileManager.default.createFile(atPath: url.path, contents: Data(container.path.utf8))
            }
            if let error { return "refused: \(error.localizedDescription)" }
            return written ? "allowed" : "refused: the container can't be written"
        default:
            return "unknown attempt \(line)"
        }
        return result >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))"
    }

    /// Tries `preview` of ``Fault/attempts``: loads the preview image of the host's attachment,
    /// as data: "preview TEXT", or "refused: " and why.
    private static func preview(of provider: NSItemProvider) async -> String {
        await withCheckedContinuation { continuation in
            provider.loadPreviewImage(options: [NSItemProviderPreferredImageSizeKey: "ignored"]) { image, error in
                guard let data = (image as? NSData).map({ $0 as Data }) else {
                    return continuation.resume(returning: "refused: \(error?.localizedDescription ?? "not data: \(String(describing: image))")")
                }
                continuation.resume(returning: "preview \(String(decoding: data, as: UTF8.self))")
            }
        }
    }

    /// Tries `pick TYPE PATH` of ``Fault/attempts``.
    private static func pick(_ line: String, in context: NSExtensionContext) async -> String {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { return "unknown attempt \(line)" }
        let types = parts[1] == "any" ? [] : [UTType(importedAs: parts[1])]
        let providers: [NSItemProvider]
        do {
            providers = try await context.pickFiles(message: "Pick a file for the fault extension", allowedContentTypes: types)
        } catch let error as CocoaError where error.code == .userCancelled {
            return "cancelled"
        } catch {
            return "refused: \(error.localizedDescription)"
        }
        guard let provider = providers.first, let type = provider.registeredTypeIdentifiers.first else { return "refused: no provider" }
        let read: String = await withCheckedContinuation { continuation in
            provider.loadFileRepresentation(forTypeIdentifier: type) { url, error in
                guard let url else { return continuation.resume(returning: "no file: \(String(describing: error))") }
                let content = (try? String(contentsOf: url, encoding: .utf8)) ?? "unreadable"
                continuation.resume(returning: "picked \(provider.suggestedName ?? "?"): \(content)")
            }
        }
        // The descriptors this process holds of the picked file, found by where they lead.
        let descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init).filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == parts[2]
        }
        let written = descriptors.isEmpty ? "no descriptor" : descriptors.map { descriptor in
            Glibc.write(descriptor, "x", 1) >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))"
        }.joined(separator: ", ")
        withExtendedLifetime(providers) {}
        return "\(read); write: \(written); path: \(attempt("read \(parts[2])"))"
    }

    /// Forks `count` children that wait to be killed, once appexd has moved this process into
    /// its pids cgroup (so the cap counts every one), then kills and reaps them: "allowed",
    /// or "refused: ", the error, and how many it made.
    nonisolated private static func forkChildren(_ count: Int) -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, !isInAPidsCgroup() { usleep(10_000) }
        var children: [pid_t] = []
        var failure: Int32?
        for _ in 0..<count {
            let child = fork()
            if child == 0 {
                pause()
                _exit(0)
            }
            if child < 0 {
                failure = errno
                break
            }
            children.append(child)
        }
        for child in children {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        guard let failure else { return "allowed" }
        return "refused: \(String(cString: strerror(failure))) after \(children.count)"
    }

    /// Connects a Unix stream socket to the socket file at `path`: "allowed" or "refused: " and why.
    nonisolated private static func connectUnix(_ path: String) -> String {
        do {
            try UnixSocket.connect(to: path).close()
            return "allowed"
        } catch {
            return "refused: \(String(cString: strerror(error.errno)))"
        }
    }

    /// Whether /proc/self/cgroup puts this process in a pids cgroup below the root.
    nonisolated private static func isInAPidsCgroup() -> Bool {
        let lines = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        return lines.split(separator: "\n").contains { line in
            let fields = line.split(separator: ":", maxSplits: 2)
            return fields.count == 3 && fields[1].split(separator: ",").contains("pids") && fields[2] != "/"
        }
    }

    /// Completes with a copy of each item: its text and user info, and for each attachment
    /// its first type. A file comes back as the same file, opened in place where the host
    /// allows it; anything else as the bytes loaded.
    private static func echo(_ context: NSExtensionContext) async {
        var returned: [NSExtensionItem] = []
        do {
            for item in context.inputItems as! [NSExtensionItem] {
                let copy = NSExtensionItem()
                copy.propertyListUserInfo = item.propertyListUserInfo
                var attachments: [NSItemProvider] = []
                for provider in item.attachments ?? [] {
                    guard let representation = provider.representations().first else { continue }
                    attachments.append(try await echo(representation.typeIdentifier, kind: representation.kind, of: provider))
                }
                copy.attachments = attachments
                returned.append(copy)
            }
        } catch {
            context.cancelRequest(withError: error)
            return
        }
        await context.completeRequest(returningItems: returned)
    }

    private static func echo(_ type: String, kind: NSItemProvider.Representation.Kind, of provider: NSItemProvider) async throws -> NSItemProvider {
        let echoed = NSItemProvider()
        echoed.suggestedName = provider.suggestedName
        if kind == .file {
            echoed.registerFileRepresentation(forTypeIdentifier: type, visibility: .all) { completion in
                provider.loadInPlaceFileRepresentation(forTypeIdentifier: type) { url, _, error in completion(url, false, error) }
                return nil
            }
        } else {
            let data = try await provider.loadDataRepresentation(forTypeIdentifier: type)
            echoed.registerDataRepresentation(forTypeIdentifier: type, visibility: .all) { completion in
                completion(data, nil)
                return nil
            }
        }
        return echoed
    }

    /// ``Fault/uploadsInBackground``: hands the upload to a background session and
    /// completes at once; the extension then ends, and the upload goes on.
    private static func uploadInBackground(_ context: NSExtensionContext) {
        let item = context.inputItems.first as? NSExtensionItem
        let lines = (item?.attributedContentText?.string ?? "").split(separator: "\n").map(String.init)
        guard lines.count == 2, let target = URL(string: lines[0]), let provider = item?.attachments?.first,
              let type = provider.registeredTypeIdentifiers.first else {
            return context.cancelRequest(withError: NSError(domain: "AppexFault", code: 1, userInfo: [NSLocalizedDescriptionKey: "no URL, group and file"]))
        }
        provider.loadInPlaceFileRepresentation(forTypeIdentifier: type) { file, _, error in
            guard let file else {
                return context.cancelRequest(withError: error ?? NSError(domain: "AppexFault", code: 2))
            }
            let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.faults.uploads")
            configuration.sharedContainerIdentifier = lines[1]
            let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
            var request = URLRequest(url: target)
            request.httpMethod = "PUT"
            let task = session.uploadTask(with: request, fromFile: file)
            task.resume()
            // A task that could not be made completes on the session's queue, with the reason.
            for _ in 0..<200 where task.taskIdentifier == 0 && task.state != .completed { usleep(10_000) }
            let done = NSExtensionItem()
            done.attributedContentText = NSAttributedString(string: task.taskIdentifier > 0
                ? "uploading as task \(task.taskIdentifier)" : "refused: \(task.error.map { "\($0 as NSError)" } ?? "no reason")")
            context.completeRequest(returningItems: [done])
        }
    }

    /// An item that says the request is done.
    private static var done: NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "done")
        return item
    }

    /// How many bytes this process wrote on the session that the host has not read yet (SIOCOUTQ).
    nonisolated private static func unreadBytesOnSession() -> Int32 {
        var count: Int32 = 0
        _ = ioctl(4, UInt(0x5411), &count)
        return count
    }

    /// Aborts as soon as more than `count` bytes wait unread on the session: the returned items
    /// are on their way, and the process ends before the host has read them. Gives up waiting
    /// after 2 s, having missed them, and aborts anyway.
    nonisolated private static func crash(onceUnreadBytesExceed count: Int32) -> Never {
        let deadline = ContinuousClock.now + .seconds(2)
        while unreadBytesOnSession() <= count, ContinuousClock.now < deadline { sched_yield() }
        abort()
    }

    /// Touches a mebibyte at a time and keeps it, until appexd ends the process. Stops
    /// growing at 4 GiB, so a daemon that fails to act can't take the machine down.
    nonisolated private static func touchMemoryForever() -> Never {
        let chunk = 1 << 20
        var kept: [UnsafeMutableRawPointer] = []
        while true {
            if kept.count < 4096, let memory = malloc(chunk) {
                memset(memory, 0xA5, chunk)
                kept.append(memory)
            }
            usleep(1000)
        }
    }

    /// Has the kernel fill `count` bytes in one call (MAP_POPULATE), faster than any watch
    /// can look, then waits to be ended.
    nonisolated private static func touchAtOnce(_ count: Int) -> Never {
        _ = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
        while true { sleep(1) }
    }

    /// Writes a frame header announcing a 16 MiB payload, over the 1 MiB limit, to `descriptor`.
    /// Asks appexd, through the runtime, to open the URL of `openURL URL`.
    private static func openURL(_ line: String, in context: NSExtensionContext) async -> String {
        let parts = line.split(separator: " ").map(String.init)
        guard parts.count == 2, let url = URL(string: parts[1]) else { return "unknown attempt \(line)" }
        let answer = await context.openURL(url)
        return answer.opened ? "opened" : "refused: \(answer.reason)"
    }

    /// Writes the message of `raw MESSAGE` onto the channel to appexd (descriptor 3), with a
    /// call number the runtime never uses, so the runtime sets aside the answer.
    private static func sendRaw(_ line: String, in context: NSExtensionContext) -> String {
        let parts = line.split(separator: " ").map(String.init)
        func request(_ word: String) -> UUID? { word == "self" ? context.requestIdentifier : UUID(uuidString: word) }
        let call: UInt64 = 1 << 40
        let message: WireMessage
        switch parts.dropFirst().first {
        case "openURL" where parts.count == 4:
            guard let requestID = request(parts[2]) else { return "unknown attempt \(line)" }
            message = .openURL(OpenURL(call: call, url: parts[3], requestID: requestID))
        case "pickFiles" where parts.count == 3:
            guard let requestID = request(parts[2]) else { return "unknown attempt \(line)" }
            message = .pickFiles(PickFiles(call: call, requestID: requestID, message: "Pick a file for the fault extension"))
        case "beginRequest" where parts.count == 2:
            message = .beginRequest(BeginRequest(call: call, requestID: UUID(), extensionIdentifier: "com.example.anything"))
        default:
            return "unknown attempt \(line)"
        }
        guard let frame = try? message.frameBytes() else { return "refused: \(message.name) does not fit in a frame" }
        let written = frame.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
        return written == frame.count ? "sent" : "refused: \(String(cString: strerror(errno)))"
    }

    nonisolated private static func writeGarbage(to descriptor: Int32) {
        let header: [UInt8] = [0, 0, 0, 1, 1, 0, 0, 0]
        _ = header.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

/// A weak reference to a handler, for the main queue, where the handler began and is used.
private struct WeakHandler: @unchecked Sendable {
    weak var handler: FaultHandler?
}

/// A class that exists but does not adopt `NSExtensionRequestHandling`, for the test of a
/// principal class that can't serve.
final class NotAHandler: NSObject {}

/// A class that adopts `NSExtensionRequestHandling` without being an `NSObject`, which a
/// principal class must be, as on Apple's systems.
final class NotAnObject: NSObjectProtocol, NSExtensionRequestHandling {
    func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    var hash: Int { ObjectIdentifier(self).hashValue }
    func `self`() -> Self { self }
    func isProxy() -> Bool { false }
    var description: String { "NotAnObject" }
    var debugDescription: String { description }
    func beginRequest(with context: NSExtensionContext) {}
}

/// syscall(2) with three arguments, which Swift's Glibc module leaves out because the C
/// declaration is variadic.
@_silgen_name("syscall")
private func cSyscall(_ number: Int, _ first: Int, _ second: Int, _ third: Int) -> Int

/// ptrace(2), which Swift's Glibc module leaves out because the C declaration is variadic.
@_silgen_name("ptrace")
private func cPtrace(_ request: Int32, _ pid: pid_t, _ address: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) -> Int
