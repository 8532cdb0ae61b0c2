import AppexCore
import AppexWire
import Foundation
import Testing

/// Every message survives encoding, framing, decoding and re-encoding unchanged.
@Suite struct MessageRoundTripTests {
    /// Frames `message`, cuts the frame back out, and decodes it.
    func roundTrip(_ message: WireMessage, descriptors: Int = 0) throws -> WireMessage {
        var decoder = FrameDecoder()
        decoder.receive(try message.frameBytes(descriptorCount: descriptors), descriptors: descriptors)
        let frame = try #require(try decoder.nextFrame())
        #expect(frame.type == message.type)
        #expect(frame.descriptorCount == descriptors)
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.pendingDescriptors == 0)
        return try WireMessage(frame)
    }

    @Test(arguments: WireSamples.all)
    func everyMessageRoundTrips(_ message: WireMessage) throws {
        let decoded = try roundTrip(message, descriptors: 3)
        #expect(decoded == message)
        #expect(decoded.name == message.name)
        #expect(decoded.encodedPayload() == message.encodedPayload(), "the encoding is stable")
    }

    @Test func theSamplesCoverEveryMessageTypeTheDecoderAccepts() throws {
        var defined: Set<UInt16> = []
        for type in UInt16.min...UInt16.max {
            do {
                _ = try WireMessage(Frame(type: type, payload: []))
                defined.insert(type)
            } catch where error.code == .unknownMessageType {
                continue
            } catch {
                defined.insert(type) // defined, but an empty payload lacks a required field
            }
        }
        #expect(defined == Set(WireSamples.all.map(\.type)))
        #expect(defined.count == 42)
        #expect(Set(WireSamples.all.map(\.name)).count == 42, "each type number has its own name")
    }

    @Test(arguments: WireSamples.payloads)
    func everyPayloadVariantRoundTrips(_ payload: Payload) throws {
        let message = WireMessage.loadResult(LoadResult(loadID: 1, typeIdentifier: "public.data", payload: payload))
        #expect(try roundTrip(message) == message)
    }

    @Test(arguments: WireSamples.everyPlistKind.sorted { $0.key < $1.key }.map(\.value))
    func everyPlistKindRoundTripsOnItsOwn(_ value: PropertyListValue) throws {
        let message = WireMessage.loadResult(LoadResult(loadID: 2, typeIdentifier: "public.item", payload: .item(value)))
        #expect(try roundTrip(message) == message)
    }

    @Test func negativeZeroAndNaNKeepTheirBits() throws {
        for bits: UInt64 in [(-0.0 as Double).bitPattern, Double.nan.bitPattern, Double.signalingNaN.bitPattern, 0x7FF0_0000_0000_0001] {
            let message = WireMessage.loadResult(LoadResult(loadID: 3, typeIdentifier: "t", payload: .item(.real(Double(bitPattern: bits)))))
            guard case .loadResult(let result) = try roundTrip(message), case .item(.real(let real)) = result.payload else {
                Issue.record("a real came back as something else")
                continue
            }
            #expect(real.bitPattern == bits)
        }
    }

    @Test func optionalFieldsTellPresentButEmptyFromAbsent() throws {
        let attachments = [
            WireAttachment(providerID: 1, suggestedName: "", representations: []),
            WireAttachment(providerID: 1, suggestedName: nil, representations: []),
        ]
        let items = [
            WireItem(attributedTitle: AttributedText(text: ""), attributedContentText: nil),
            WireItem(attributedTitle: nil, attributedContentText: AttributedText(text: "")),
            WireItem(attachments: attachments),
        ]
        let request = WireMessage.extensionRequest(RequestItems(requestID: WireSamples.firstID, items: items))
        #expect(try roundTrip(request) == request)

        let interruptions = [
            Interruption(kind: .crashed, signal: 0, exitStatus: nil),
            Interruption(kind: .crashed, signal: nil, exitStatus: 0),
            Interruption(kind: .crashed, signal: nil, exitStatus: nil),
            Interruption(kind: .crashed, signal: -5, exitStatus: .min),
        ]
        for interruption in interruptions {
            let message = WireMessage.requestInterrupted(RequestInterrupted(requestIDs: [], sessionID: 1, reason: interruption))
            #expect(try roundTrip(message) == message)
        }

        let activation = ActivationItems([
            .init(attributedTitle: "", attributedContentText: "", userInfo: [:], attachments: [
                .init(registeredTypeIdentifiers: [""], suggestedName: "", fileSize: 0),
            ]),
            .init(attributedTitle: nil, attributedContentText: nil, userInfo: nil, attachments: [
                .init(registeredTypeIdentifiers: [], suggestedName: nil, fileSize: nil),
            ]),
        ])
        let query = WireMessage.queryExtensions(QueryExtensions(call: 1, items: activation))
        #expect(try roundTrip(query) == query)
    }

    @Test(arguments: [Int64.min, -1, -2, 1, Int64(Int32.min), Int64(Int32.max), .max])
    func negativeAndExtremeIntegersRoundTrip(_ value: Int64) throws {
        let narrow = Int32(truncatingIfNeeded: value)
        let messages: [WireMessage] = [
            .failure(Failure(call: 1, error: ErrorInfo(domain: "d", code: Int(value), message: "m"))),
            .welcome(Welcome(version: 1, pid: narrow, name: "n")),
            .requestStarted(RequestStarted(call: 1, requestID: WireSamples.firstID, sessionID: 1, pid: narrow, isNewSession: false)),
            .requestInterrupted(RequestInterrupted(requestIDs: [], sessionID: 1,
                                                   reason: Interruption(kind: .crashed, signal: narrow, exitStatus: narrow))),
            .loadResult(LoadResult(loadID: 1, typeIdentifier: "t", payload: .item(.integer(Int(value))))),
        ]
        for message in messages { #expect(try roundTrip(message) == message) }
    }

    @Test func everyEnumValueRoundTrips() throws {
        let roles: [Hello.Role] = [.unspecified, .host, .cli, .extension, .sessionHost]
        for role in roles {
            let message = WireMessage.hello(Hello(role: role, name: "x"))
            #expect(try roundTrip(message) == message)
        }
        let kinds: [Interruption.Kind] = [.unspecified, .crashed, .memoryLimit, .launchDeadline, .requestDeadline,
                                          .protocolError, .daemonGone, .launchFailed]
        for kind in kinds {
            let message = WireMessage.requestInterrupted(RequestInterrupted(requestIDs: [WireSamples.firstID], sessionID: 1,
                                                                            reason: Interruption(kind: kind)))
            #expect(try roundTrip(message) == message)
        }
        let representationKinds: [WireRepresentation.Kind] = [.data, .file, .item]
        for kind in representationKinds {
            let message = WireMessage.loadRequest(LoadRequest(loadID: 1, requestID: WireSamples.firstID, providerID: 1,
                                                              typeIdentifier: "t", kind: kind))
            #expect(try roundTrip(message) == message)
        }
    }

    @Test func answersCarryTheirCallNumberAndNothingElseDoes() {
        let answers: Set<String> = ["Failure", "Pong", "QueryResult", "RequestStarted", "ProcessList", "OpenURLResult", "GroupContainerResult", "PickedFiles",
                                    "WidgetHasContentResult", "TransferSession", "TransferTaskResult"]
        for message in WireSamples.all {
            var isAnswer = answers.contains(message.name)
            if case .failure(let failure) = message { isAnswer = failure.call != 0 }
            #expect((message.callNumber != nil) == isAnswer, "\(message.name)")
        }
        #expect(WireMessage.failure(Failure(call: 0, error: WireSamples.errorInfo)).callNumber == nil, "call 0 answers nothing")
        #expect(WireMessage.failure(Failure(call: 5, error: WireSamples.errorInfo)).callNumber == 5)
        #expect(WireMessage.pong(Call(0)).callNumber == 0)
        #expect(WireMessage.ping(Call(5)).callNumber == nil)
    }

    @Test func aMessageTooLargeForAFrameIsRefusedWhenFramed() throws {
        let huge = WireMessage.checkIn(CheckIn(bundleIdentifier: String(repeating: "x", count: Frame.maximumPayloadSize)))
        let error = #expect(throws: WireError.self) { try huge.frameBytes() }
        #expect(error?.code == .messageTooLarge)

        let justFits = WireMessage.loadResult(LoadResult(loadID: 0, typeIdentifier: "", payload: .data(Data(count: Frame.maximumPayloadSize - 8))))
        #expect(justFits.encodedPayload().count == Frame.maximumPayloadSize)
        #expect(try roundTrip(justFits) == justFits)

        let crowded = #expect(throws: WireError.self) { try WireMessage.ping(Call(1)).frameBytes(descriptorCount: Frame.maximumDescriptors + 1) }
        #expect(crowded?.code == .messageTooLarge)
        #expect(try roundTrip(.ping(Call(1)), descriptors: Frame.maximumDescriptors) == .ping(Call(1)))
    }
}

/// A session's events go out in messages each within a frame, however many there are.
struct TransferEventBatchTests {
    @Test func manyLargeEventsAreSplitIntoMessagesThatEachFitAFrame() throws {
        let task = TransferTaskInfo(taskIdentifier: 1, id: UUID().uuidString, kind: "upload", url: "https://example.com/up", method: "PUT", state: "completed",
                                    responseHeaders: [TransferHeader(name: "X-Long", value: String(repeating: "a", count: 16 * 1024))])
        let events = (1...100).map { TransferEventInfo(sequence: UInt64($0), kind: "receivedData", task: task, data: Data(count: 64 * 1024)) }
        let batches = TransferEvents.batches(of: events, in: "s", backlog: true)
        #expect(batches.count > 1)
        #expect(batches.flatMap(\.events) == events, "all of them, in order")
        #expect(batches.map(\.backlog) == Array(repeating: false, count: batches.count - 1) + [true], "only the last ends the backlog")
        for batch in batches {
            // Encoded whole, it would throw messageTooLarge past a frame's 1 MiB.
            #expect(throws: Never.self) { _ = try WireMessage.transferEvents(batch).frameBytes() }
        }
        #expect(TransferEvents.batches(of: [], in: "s", backlog: true).map(\.events.isEmpty) == [true], "the backlog's end is said even with none")
    }
}
