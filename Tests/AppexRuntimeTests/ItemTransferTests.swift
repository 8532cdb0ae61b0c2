import AppexCore
import AppexHost
import AppexItems
import AppexTesting
import Foundation
import Glibc
import Testing

/// Items cross between a host and a real extension process: loads are lazy and exact,
/// large data travels in memory files and files as descriptors, and what comes back is
/// what went out.
@Suite(.serialized, .timeLimit(.minutes(2))) final class ItemTransferTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    @Test func theEchoReturnsTheItemsItWasGiven() async throws {
        try await world.install("echo")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        do { // the items go at the end of this scope, and with them what they hold
            let sent = textItem("hello, extension")
            sent.userInfo = ["note": "kept"]
            let outcome = try await echo.outcome([sent])
            let items = try #require(outcome.items, "\(outcome)")
            #expect(items.count == 1)
            #expect(items.first?.userInfo?["note"] as? String == "kept")
            let text = try await items[0].data(UTType.utf8PlainText.identifier)
            #expect(String(decoding: text, as: UTF8.self) == "hello, extension")
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func dataOverAMebibyteTravelsInMemoryFilesBothWays() async throws {
        try await world.install("echo")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        do {
            // Named with the world's tag, so the memory files that carry it can be told apart.
            let type = "com.example.blob-\(world.tag)"
            let bytes = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let loads = Counter()
            let provider = NSItemProvider()
            provider.register(bytes, as: type, counting: loads)
            let outcome = try await echo.outcome([item(provider)])
            let items = try #require(outcome.items, "\(outcome)")
            let returned = try await items[0].data(type)
            #expect(returned == bytes)
            #expect(loads.value == 1)
            #expect(world.holdings().taggedMemory > 0, "the returned bytes are in a memory file, mapped, not copied into the message")
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aFileIsHandedOverAsTheSameFileWithoutCopyingIt() async throws {
        try await world.install("echo")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        do {
            // 64 MiB, sparse: if any layer copied it, the copy would be another inode.
            try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
            let url = world.test.scratch.appendingPathComponent("large.bin")
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            #expect(truncate(url.path, 64 << 20) == 0)
            let original = try Self.status(url.path)
            let provider = NSItemProvider(contentsOf: url, contentType: .data, openInPlace: true)
            let outcome = try await echo.outcome([item(provider)])
            let items = try #require(outcome.items, "\(outcome)")
            let returned = try #require(items.first?.attachments?.first)
            #expect(returned.registeredTypeIdentifiers == [UTType.data.identifier])
            let received = try await bounded { try await Self.status(ofFileIn: returned, type: UTType.data.identifier) }
            #expect(received.inode == original.inode && received.device == original.device, "the extension got the host's own file, and gave it back")
            #expect(received.size == 64 << 20)
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func loadsRunOnlyForTheTypeAskedForAndOnlyWhenAsked() async throws {
        try await world.install("describe", "echo")
        let describe = try await world.extension("describe")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        do {
            let types = [UTType.utf8PlainText.identifier, UTType.jpeg.identifier, "com.example.other"]
            let counters = types.map { _ in Counter() }
            let hidden = Counter()
            let provider = NSItemProvider()
            for (type, counter) in zip(types, counters) { provider.register(Data(type.utf8), as: type, counting: counter) }
            provider.registerDataRepresentation(forTypeIdentifier: "com.example.private", visibility: .ownProcess) { completion in
                hidden.increment()
                completion(Data(), nil)
                return nil
            }

            let described = try await describe.outcome([item(provider)])
            let offered = try #require(described.items?.first?.propertyListUserInfo?["types"], "\(described)")
            #expect(offered == .array([.array(types.map(PropertyListValue.string))]), "every type but the private one is offered")
            #expect(counters.map(\.value) == [0, 0, 0], "describing loads nothing")

            let echoed = try await echo.outcome([item(provider)])
            #expect(echoed.items != nil, "\(echoed)")
            #expect(counters.map(\.value) == [1, 0, 0], "the echo loads its first type, once")
            #expect(hidden.value == 0)
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func askingForPublicImageLoadsTheRegisteredJPEG() async throws {
        try await world.install("image")
        let image = try await world.extension("image")
        let baseline = world.baseline()
        do {
            let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 1000))
            let textLoads = Counter()
            let jpegLoads = Counter()
            let provider = NSItemProvider()
            provider.register(Data("not an image".utf8), as: UTType.plainText.identifier, counting: textLoads)
            provider.register(jpeg, as: UTType.jpeg.identifier, counting: jpegLoads)
            let outcome = try await image.outcome([item(provider)])
            let items = try #require(outcome.items, "\(outcome)")
            #expect(try await items[0].data(UTType.jpeg.identifier) == jpeg)
            #expect(jpegLoads.value == 1)
            #expect(textLoads.value == 0)
        }
        await world.expectNothingLeaked(since: baseline)
    }

    /// The status of the file `provider` hands out for `type`, taken while it is handed out.
    static func status(ofFileIn provider: NSItemProvider, type: String) async throws -> FileStatus {
        try await withCheckedThrowingContinuation { continuation in
            provider.loadItem(forTypeIdentifier: type) { item, error in
                continuation.resume(with: Result {
                    guard let url = item as? NSURL as URL? else { throw error ?? WorldError("\(type) is not a file: \(String(describing: item))") }
                    return try status(url.path)
                })
            }
        }
    }

    /// Which file a path leads to (its device and inode), and its size. Read through
    /// FileManager, on the path with its links resolved (a file handed over in place is a
    /// `/proc/self/fd` link): with CNIOBoringSSL in the build, the compiler finds
    /// `struct stat`'s fields through whichever module it meets first, and demands that
    /// module's import.
    struct FileStatus {
        let device: Int
        let inode: Int
        let size: Int
    }

    static func status(_ path: String) throws -> FileStatus {
        guard let resolved = realpath(path, nil) else { throw WorldError("realpath \(path): errno \(errno)") }
        defer { free(resolved) }
        let attributes = try FileManager.default.attributesOfItem(atPath: String(cString: resolved))
        guard let device = attributes[.systemNumber] as? Int, let inode = attributes[.systemFileNumber] as? Int,
              let size = attributes[.size] as? Int else { throw WorldError("no device, inode or size for \(path): \(attributes)") }
        return FileStatus(device: device, inode: inode, size: size)
    }
}
