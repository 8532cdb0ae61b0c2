import Benchmark
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The runtime benchmarks' baseline: a small message bounced over a Unix socketpair to a
/// thread that echoes it, the least a round trip between two parties can cost here.
public final class PingPong {
    /// The message's size: about a small request's frame.
    public static let messageBytes = 64
    private let socket: Int32

    /// Makes the socketpair and starts the echoing thread, which ends when ``close()`` closes
    /// this end.
    public init() throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw BenchmarkFailure("socketpair: errno \(errno)") }
        socket = pair[0]
        let echo = pair[1]
        Thread {
            var buffer = [UInt8](repeating: 0, count: Self.messageBytes)
            while true {
                let count = read(echo, &buffer, Self.messageBytes)
                guard count > 0, write(echo, buffer, count) == count else { break }
            }
            Glibc.close(echo)
        }.start()
    }

    /// One round trip: the message there and back.
    public func bounce() {
        var buffer = [UInt8](repeating: 7, count: Self.messageBytes)
        guard write(socket, buffer, Self.messageBytes) == Self.messageBytes, read(socket, &buffer, Self.messageBytes) == Self.messageBytes else {
            fatalError("the ping-pong socket failed: errno \(errno)")
        }
    }

    public func close() {
        Glibc.close(socket)
    }
}

extension PingPong {
    /// Registers the baseline as the benchmark `name`: one ``bounce()`` per iteration, on a
    /// socketpair made in setup and closed in teardown.
    public static func registerBaseline(_ name: String) {
        final class Slot: @unchecked Sendable { var pingPong: PingPong? }
        let slot = Slot()
        Benchmark(name) { _ in
            slot.pingPong!.bounce()
        } setup: {
            slot.pingPong = try PingPong()
        } teardown: {
            slot.pingPong?.close()
            slot.pingPong = nil
        }
    }
}
