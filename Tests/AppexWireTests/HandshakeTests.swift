import AppexWire
import Testing

/// The handshake's rules, which every channel follows (docs/wire.md, "The handshake").
@Suite struct HandshakeTests {
    func hello(_ minimum: UInt32, _ maximum: UInt32, protocolName: String = Hello.protocolName) -> WireMessage {
        var hello = Hello(role: .host, name: "test", minimumVersion: minimum, maximumVersion: maximum)
        hello.protocolName = protocolName
        return .hello(hello)
    }

    func refusal(_ work: () throws(WireError) -> UInt32) -> String? {
        do {
            _ = try work()
            return nil
        } catch {
            #expect(error.code == .handshake)
            return error.message
        }
    }

    @Test func theHighestVersionBothSpeakIsAgreed() throws {
        #expect(try Handshake.agree(to: hello(1, WireVersion.current)) == WireVersion.current)
        #expect(try Handshake.agree(to: hello(1, 3)) == 3, "an older peer")
        #expect(try Handshake.agree(to: hello(2, 1000)) == WireVersion.current, "a newer peer that still speaks ours")
        #expect(try Handshake.agree(to: hello(1, 5), supporting: 3...4) == 4)
    }

    @Test func greetingsWithNothingInCommonAreRefusedWithTheReason() {
        #expect(refusal { () throws(WireError) in try Handshake.agree(to: .ping(Call(1))) }?.contains("must be Hello, not Ping") == true)
        #expect(refusal { () throws(WireError) in try Handshake.agree(to: hello(1, 8, protocolName: "http")) }?.contains("\"http\", not \"appex\"") == true)
        #expect(refusal { () throws(WireError) in try Handshake.agree(to: hello(6, 2)) }?.contains("6–2, an empty range") == true,
                "an empty range was once answered with version 2 on extension channels")
        #expect(refusal { () throws(WireError) in try Handshake.agree(to: hello(WireVersion.current + 1, .max)) }?.contains("the peer offered 9–") == true)
        #expect(refusal { () throws(WireError) in try Handshake.agree(to: hello(0, 0)) } != nil, "version 0 was never spoken")
    }

    @Test func theConnectingSideTakesOnlyAWelcomeAtAVersionItOffered() throws {
        #expect(try Handshake.confirm(.welcome(Welcome(version: 5, pid: 1, name: "appexd"))) == 5)
        #expect(refusal { () throws(WireError) in try Handshake.confirm(.welcome(Welcome(version: WireVersion.current + 1, pid: 1, name: "appexd"))) }?
            .contains("outside the 1–\(WireVersion.current) offered") == true)
        #expect(refusal { () throws(WireError) in try Handshake.confirm(.welcome(Welcome(version: 3, pid: 1, name: "x")), offered: 4...8) } != nil)
        let failure = WireMessage.failure(Failure(error: ErrorInfo(domain: "d", code: 7, message: "not today")))
        #expect(refusal { () throws(WireError) in try Handshake.confirm(failure) }?.contains("refused the handshake: not today") == true)
        #expect(refusal { () throws(WireError) in try Handshake.confirm(.ping(Call(2))) }?.contains("answered Hello with Ping") == true)
    }
}
