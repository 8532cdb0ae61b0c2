@testable import AppexSystem
import Glibc
import Testing

/// A launch order crosses the launcher's socket in its own encoding: what is written is read
/// back the same, and bytes that aren't an order are refused, saying where, never trusted.
@Suite struct LaunchOrderEncodingTests {
    static let full = LaunchOrder(
        executable: "/home/ü/Apps/Notes.app/PlugIns/Share.appex/Share", mainAddress: 0x1_2345_6789, arguments: ["--flag", "", "ünïcode ✓"],
        environment: ["APPEX_BUNDLE": "/home/ü/Apps/Notes.app", "EMPTY": "", "LD_LIBRARY_PATH": "/opt/appex"], descriptorTargets: [3, 4, 1, 2, -1],
        directory: "/home/ü/Containers/x", diesWithParent: true, addressSpaceLimit: 4 << 30,
        restrictions: ProcessRestrictions(
            namespaces: [.user, .pid, .mount], resourceLimits: [6: 256, 4: 0],  // RLIMIT_NPROC, RLIMIT_CORE
            landlock: LandlockRuleset(abi: 6, handledFilesystem: .known(by: 6), handledNetwork: [.bindTCP, .connectTCP], scopes: [.signals],
                                      rules: [.init("/usr", [.execute, .readFile, .readDirectory]),
                                              .init("/home/ü/Containers/x", .write, confinedTo: "/home/ü"),
                                              .init("/opt/appex/libAppexKit.so", .readFile)]),
            seccompBaseline: true, seccompRefusesExecutableMemory: true, hiddenPaths: ["/home/ü/run", "/tmp/.X11-unix"]),
        joinsEmptyNetwork: true)

    static let minimal = LaunchOrder(executable: "/bin/true", mainAddress: 0, arguments: [], environment: [:], descriptorTargets: [],
                                     directory: nil, diesWithParent: false, addressSpaceLimit: nil, restrictions: nil, joinsEmptyNetwork: false)

    @Test(arguments: [full, minimal]) func whatIsWrittenIsReadBackTheSame(order: LaunchOrder) throws {
        #expect(try LaunchOrder(decoding: order.encoded()) == order)
        // The same order, written twice, is the same bytes (the maps in the order of their keys).
        #expect(order.encoded() == order.encoded())
    }

    @Test func restrictionsWithoutLandlockAreReadBackTheSame() throws {
        var order = Self.full
        order.restrictions?.landlock = nil
        order.restrictions?.hiddenPaths = []
        #expect(try LaunchOrder(decoding: order.encoded()) == order)
    }

    @Test func everyOrderCutShortIsRefusedSayingWhere() {
        let bytes = Self.full.encoded()
        for length in 0..<bytes.count {
            do throws(SystemError) {
                _ = try LaunchOrder(decoding: Array(bytes.prefix(length)))
                Issue.record("an order cut to \(length) of \(bytes.count) bytes was read")
            } catch {
                #expect(error.errno == EBADMSG)
                #expect("\(error)".contains("of \(length)"), "\(error)")
            }
        }
    }

    @Test func bytesAfterTheOrderAreRefused() {
        #expect(throws: SystemError.self) { try LaunchOrder(decoding: Self.minimal.encoded() + [0]) }
    }

    @Test func countsAndFlagsThatLieAreRefused() throws {
        // The executable's length, the first field, says 4 GiB.
        var bytes = Self.minimal.encoded()
        bytes.replaceSubrange(0..<4, with: [0xff, 0xff, 0xff, 0xff])
        let error = try #require(throws: SystemError.self) { try LaunchOrder(decoding: bytes) }
        #expect("\(error)".contains("a count of 4294967295 that the bytes left can't hold"), "\(error)")
        // The arguments' count, after the path and main's address, says a million.
        bytes = Self.minimal.encoded()
        let arguments = 4 + "/bin/true".utf8.count + 8
        bytes.replaceSubrange(arguments..<arguments + 4, with: [0x40, 0x42, 0x0f, 0x00])
        #expect(throws: SystemError.self) { try LaunchOrder(decoding: bytes) }
        // diesWithParent's flag is 2.
        bytes = Self.minimal.encoded()
        let flag = arguments + 4 + 4 + 4 + 1
        #expect(bytes[flag] == 0)
        bytes[flag] = 2
        let flagError = try #require(throws: SystemError.self) { try LaunchOrder(decoding: bytes) }
        #expect("\(flagError)".contains("a flag of 2, neither 0 nor 1"), "\(flagError)")
    }

    @Test func aStringThatIsNotUTF8IsRefused() {
        var bytes = Self.minimal.encoded()
        bytes[4] = 0xff  // the executable's first byte
        #expect(throws: SystemError.self) { try LaunchOrder(decoding: bytes) }
    }

    /// Any byte changed, anywhere: each result is an order or a refusal, never a trap.
    @Test func corruptedOrdersAreReadOrRefused() {
        let original = Self.full.encoded()
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for round in 0..<2_000 {
            var bytes = original
            for _ in 0..<(1 + round % 4) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if (try? LaunchOrder(decoding: bytes)) == nil { refused += 1 }
        }
        #expect(refused > 0)
    }
}
