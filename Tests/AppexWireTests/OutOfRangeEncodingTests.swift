import AppexWire
import Testing

/// Values a Swift type can hold but a `uint64` field can't: encoding clamps them rather than
/// trapping, so a host's bad range can't crash the process that relays it.
@Suite struct OutOfRangeEncodingTests {
    @Test func negativeCountsEncodeAsZero() throws {
        let run = AttributedText.Run(location: -1, length: -5, attributes: PlistDictionary())
        #expect(run.encoded() == AttributedText.Run(location: 0, length: 0, attributes: PlistDictionary()).encoded())

        let payload = Payload.descriptor(slot: -1, length: -1, filename: "f")
        #expect(payload.encoded() == Payload.descriptor(slot: 0, length: 0, filename: "f").encoded())

        let process = ExtensionProcess(pid: 1, extensionIdentifier: "x", hostPID: 2, hostName: "h", residentBytes: 0,
                                       ageMilliseconds: 0, state: "idle", activeRequests: -3, memoryLimit: 0)
        var zero = process
        zero.activeRequests = 0
        #expect(process.encoded() == zero.encoded())
    }
}
