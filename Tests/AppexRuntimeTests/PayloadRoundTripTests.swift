import AppexCore
import AppexIPC
import AppexItems
import AppexSession
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// What a provider's handler produced, encoded by ``PayloadEncoder``, sent over a real
/// socket pair and read back by ``ReceivedPayload``: the bytes, files and items arrive as
/// they left, and the limits say what was wrong.
@Suite(.timeLimit(.minutes(1))) struct PayloadRoundTripTests {
    /// Encodes `produced` as `type`, sends it in a `LoadResult` over a socket pair, and
    /// returns the payload as the far end reads it, from `sender`.
    func roundTrip(_ produced: NSItemProvider.Representation.Payload, as type: String,
                   from sender: ReceivedPayload.Sender = .extension) async throws -> ReceivedPayload {
        var slots = DescriptorSlots()
        let payload = try PayloadEncoder.encode(produced, typeIdentifier: type, into: &slots)
        return try await roundTrip(payload, descriptors: slots.descriptors, from: sender)
    }

    /// Sends `payload` with `descriptors` over a socket pair and returns it as received from `origin`.
    func roundTrip(_ payload: Payload, descriptors: [FileDescriptor] = [], from origin: ReceivedPayload.Sender = .extension) async throws -> ReceivedPayload {
        let (left, right) = try UnixSocket.pair()
        let sender = Connection(socket: left, name: "sender")
        let receiver = Connection(socket: right, name: "receiver")
        defer {
            sender.close()
            receiver.close()
        }
        let arrived = AsyncStream<IncomingMessage>.makeStream()
        receiver.start { arrived.continuation.yield($0) }
        try sender.send(.loadResult(LoadResult(loadID: 1, typeIdentifier: "t", payload: payload)), descriptors: descriptors)
        let incoming = try await bounded { await arrived.stream.first { _ in true } }
        guard case .loadResult(let result)? = incoming?.message, let incoming else { throw WorldError("no LoadResult arrived") }
        return try ReceivedPayload(result.payload, in: incoming, from: origin)
    }

    /// The bytes `count` long, in a pattern.
    func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }) }

    /// This process's mappings, `/proc/self/maps`, read to its end (Foundation's
    /// `String(contentsOfFile:)` stops at the first 4 KiB of a file that says it has none).
    func mappings() throws -> String {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// What `descriptor` refers to, such as `/memfd:x (deleted)`.
    func target(_ descriptor: FileDescriptor?) -> String {
        descriptor.flatMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0.rawValue)") } ?? ""
    }

    @Test func bytesUpToTheInlineLimitTravelInTheFrame() async throws {
        let data = bytes(PayloadEncoder.inlineLimit)
        let received = try await roundTrip(.data(data), as: "public.data")
        #expect(received.payload == .data(data))
        #expect(received.descriptor == nil)
        #expect(try received.data(typeIdentifier: "public.data") == data)
    }

    @Test func largerBytesTravelInASealedMemoryFileThatClosesWithThePayload() async throws {
        let type = "com.example.large-\(UUID().uuidString.prefix(8))"
        let data = bytes(PayloadEncoder.inlineLimit + 1)
        var memoryFile = ""
        do {
            let received = try await roundTrip(.data(data), as: type)
            #expect(received.payload == .descriptor(slot: 0, length: data.count, filename: ""))
            memoryFile = target(received.descriptor)
            #expect(memoryFile.hasPrefix("/memfd:\(type)"))
            let contents = try received.data(typeIdentifier: type)
            let maps = try mappings()
            #expect(maps.contains("/memfd:\(type)"), "sealed, so mapped, not copied")
            #expect(contents == data, "after the maps were read, so the mapping was there to see")
        }
        // The receiving connection's reader thread lets its copy of the message go a moment
        // after handing it on, which on a loaded machine can come after this line (CI saw
        // both copies open here once, when `bounded`'s timer task also kept a copy). A copy
        // that leaked stays open, which this still catches.
        #expect(await eventually(seconds: 10) { !ResourceCounts.openDescriptorTargets().contains(memoryFile) },
                "the sender's and the receiver's copies closed with the payload")
    }

    @Test func aFileTravelsAsItsDescriptorWithItsName() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("notes.txt")
        try Data("file contents".utf8).write(to: url)
        do {
            let received = try await roundTrip(.file(url, coordinated: false), as: "public.plain-text")
            #expect(received.payload == .descriptor(slot: 0, length: 13, filename: "notes.txt"))
            #expect(target(received.descriptor) == url.path)
            var seen: (String, Data)?
            try received.withFile(typeIdentifier: "public.plain-text", suggestedName: nil) { file in
                seen = (file.lastPathComponent, (try? Data(contentsOf: file)) ?? Data())
            }
            #expect(seen?.0 == "notes.txt")
            #expect(seen?.1 == Data("file contents".utf8))
            #expect(try received.data(typeIdentifier: "public.plain-text") == Data("file contents".utf8))
        }
        // As above: the reader thread's copy goes a moment after the message was handed on.
        #expect(await eventually(seconds: 10) { ResourceCounts.openDescriptors(under: folder.url) == 0 },
                "every descriptor of the file closed with the payload: \(ResourceCounts.openDescriptors(under: folder.url)) open")
    }

    @Test func aFileAnExtensionTruncatesAfterHandingItOverIsReadNotMapped() async throws {
        // Mapped, a file its sender cuts short would end this process with SIGBUS at the first
        // read past the new end; an extension's unsealed file is read instead.
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("photo.raw")
        let original = bytes(4 << 20)
        try original.write(to: url)
        let received = try await roundTrip(.file(url, coordinated: false), as: "public.data", from: .extension)
        let contents = try received.data(typeIdentifier: "public.data")
        let maps = try mappings()
        #expect(!maps.contains(url.path), "read, not mapped")
        #expect(truncate(url.path, 0) == 0)
        #expect(contents == original, "the bytes as they were when loaded")
    }

    @Test func anUnsealedFileOfAnExtensionOverTheReadLimitIsRefusedUnread() async throws {
        // A sparse file of 4 GiB takes no disk, but read it would take 4 GiB of memory.
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("sparse.raw")
        try Data().write(to: url)
        #expect(truncate(url.path, off_t(FileDescriptor.untrustedReadLimit) * 4) == 0)
        let received = try await roundTrip(.file(url, coordinated: false), as: "public.data", from: .extension)
        let error = #expect(throws: NSError.self) { try received.data(typeIdentifier: "public.data") }
        #expect(error?.localizedDescription.contains("could still change, over the \(FileDescriptor.untrustedReadLimit)") == true, "\(String(describing: error))")
    }

    @Test func aFileFromTheHostIsMappedNotCopied() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("movie.raw")
        try bytes(4 << 20).write(to: url)
        let received = try await roundTrip(.file(url, coordinated: false), as: "public.data", from: .host)
        let contents = try received.data(typeIdentifier: "public.data")
        let maps = try mappings()
        #expect(maps.contains(url.path))
        #expect(contents.count == 4 << 20, "after the maps were read, so the mapping was there to see")
    }

    @Test func aDescriptorThatIsNotAFileIsRefusedAsBytes() async throws {
        // A pipe's size is 0 and mapping it fails: it would read as nothing, or block forever
        // through its path. It is refused with the reason.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reading, writing) = (FileDescriptor(owning: ends[0]), FileDescriptor(owning: ends[1]))
        defer { writing.close() }
        let received = try await roundTrip(.descriptor(slot: 0, length: 10, filename: ""), descriptors: [reading])
        reading.close()
        let error = #expect(throws: NSError.self) { try received.data(typeIdentifier: "public.data") }
        #expect(error?.localizedDescription.contains("not a regular file") == true, "\(String(describing: error))")
    }

    @Test func itemsTravelAsValues() async throws {
        let text = try await roundTrip(.item("hello"), as: "public.plain-text")
        #expect(text.payload == .item(.string("hello")))
        #expect(try text.item(typeIdentifier: "public.plain-text", suggestedName: nil) as? String == "hello")

        let link = try await roundTrip(.item(URL(string: "https://example.com/a")!), as: "public.url")
        #expect(link.payload == .url("https://example.com/a"))
        #expect(try link.item(typeIdentifier: "public.url", suggestedName: nil) as? URL == URL(string: "https://example.com/a"))

        let number = try await roundTrip(.item(42), as: "com.example.number")
        #expect(number.payload == .item(.integer(42)))

        let data = bytes(PayloadEncoder.inlineLimit + 1)
        let large = try await roundTrip(.item(data), as: "public.data")
        #expect(large.descriptor != nil, "bytes given as an item are still too large for the frame")
        #expect(try large.item(typeIdentifier: "public.data", suggestedName: nil) as? Data == data)
    }

    @Test func anErrorTravelsAsItsDomainCodeAndMessage() async throws {
        let error = ErrorInfo(domain: "com.example.errors", code: 42, message: "the printer is on fire", recoverySuggestion: "Leave.")
        let received = try await roundTrip(.error(error))
        #expect(throws: (any Error).self) { try received.data(typeIdentifier: "public.data") }
        do {
            _ = try received.data(typeIdentifier: "public.data")
        } catch let failure as NSError {
            #expect(failure.domain == "com.example.errors" && failure.code == 42)
            #expect(failure.localizedDescription.contains("the printer is on fire"))
        }
    }

    /// The error encoding `produced` into `slots` throws, if it does.
    func encodingError(_ produced: NSItemProvider.Representation.Payload, into slots: inout DescriptorSlots) -> ErrorInfo? {
        do {
            _ = try PayloadEncoder.encode(produced, typeIdentifier: "public.data", into: &slots)
            return nil
        } catch {
            return error
        }
    }

    @Test func anItemTooLargeForAFrameIsRefusedWithTheWayOut() throws {
        var slots = DescriptorSlots()
        let error = encodingError(.item(String(repeating: "x", count: PayloadEncoder.itemLimit + 1)), into: &slots)
        #expect(error?.message.contains("over the 768 KiB an item may carry") == true, "\(String(describing: error))")
        #expect(error?.recoverySuggestion.contains("data or file representation") == true)
        #expect(slots.descriptors.isEmpty)
    }

    @Test func aMessageCarriesAtMostSixtyFourDescriptors() throws {
        var slots = DescriptorSlots()
        let data = bytes(PayloadEncoder.inlineLimit + 1)
        for index in 0..<Frame.maximumDescriptors {
            let payload = try PayloadEncoder.encode(.data(data), typeIdentifier: "public.data", into: &slots)
            #expect(payload == .descriptor(slot: index, length: data.count, filename: ""))
        }
        let error = encodingError(.data(data), into: &slots)
        #expect(error?.message.contains("would be descriptor 65 of one message, which carries at most 64") == true, "\(String(describing: error))")
        #expect(slots.descriptors.count == 64)
    }

    @Test func aSlotTheFrameDidNotCarryIsRefused() async throws {
        await #expect(throws: ErrorInfo.self) {
            _ = try await roundTrip(.descriptor(slot: 3, length: 10, filename: "x"))
        }
    }
}
