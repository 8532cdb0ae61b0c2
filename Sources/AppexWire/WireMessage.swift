/// Every message of the protocol, by the type number its frame header carries.
///
/// The numbers are part of the protocol (docs/wire.md, "Message types"): a number is never
/// reused for another message.
public enum WireMessage: Sendable, Hashable {
    // Every channel
    case hello(Hello)
    case welcome(Welcome)
    case failure(Failure)
    case goodbye(Goodbye)
    case ping(Call)
    case pong(Call)
    // Host or CLI to daemon, and back
    case queryExtensions(QueryExtensions)
    case queryResult(QueryResult)
    case beginRequest(BeginRequest)
    case requestStarted(RequestStarted)
    case endRequest(RequestReference)
    case cancelRequest(RequestReference)
    case requestInterrupted(RequestInterrupted)
    case listProcesses(Call)
    case processList(ProcessList)
    case closeSession(SessionReference)
    case requestBegun(RequestBegun)
    case sessionIdle(SessionReference)
    // Extension to daemon, and back
    case checkIn(CheckIn)
    case openURL(OpenURL)
    case openURLResult(OpenURLResult)
    case groupContainer(GroupContainer)
    case groupContainerResult(GroupContainerResult)
    case pickFiles(PickFiles)
    case pickedFiles(PickedFiles)
    case widgetHasContent(WidgetHasContent)
    case widgetHasContentResult(WidgetHasContentResult)
    // Background transfers: an app or an extension to daemon, and back
    case transferAttach(TransferAttach)
    case transferSession(TransferSession)
    case transferCreate(TransferCreate)
    case transferTaskResult(TransferTaskResult)
    case transferCancel(TransferCancel)
    case transferAcknowledge(TransferAcknowledge)
    case transferUpdate(TransferUpdate)
    case transferEvents(TransferEvents)
    // Host and extension, on their session
    case extensionRequest(RequestItems)
    case loadRequest(LoadRequest)
    case loadResult(LoadResult)
    case completeRequest(RequestItems)
    case cancelledRequest(CancelledRequest)
    case requestAcknowledged(RequestReference)
    case pointMessage(PointMessage)

    /// The type number in the frame header.
    public var type: UInt16 {
        switch self {
        case .hello: 1
        case .welcome: 2
        case .failure: 3
        case .goodbye: 4
        case .ping: 5
        case .pong: 6
        case .queryExtensions: 10
        case .queryResult: 11
        case .beginRequest: 12
        case .requestStarted: 13
        case .endRequest: 14
        case .cancelRequest: 15
        case .requestInterrupted: 16
        case .listProcesses: 17
        case .processList: 18
        case .closeSession: 19
        case .requestBegun: 20
        case .sessionIdle: 21
        case .checkIn: 30
        case .openURL: 31
        case .openURLResult: 32
        case .groupContainer: 33
        case .groupContainerResult: 34
        case .pickFiles: 35
        case .pickedFiles: 36
        case .widgetHasContent: 37
        case .widgetHasContentResult: 38
        case .transferAttach: 50
        case .transferSession: 51
        case .transferCreate: 52
        case .transferTaskResult: 53
        case .transferCancel: 54
        case .transferAcknowledge: 55
        case .transferUpdate: 56
        case .transferEvents: 57
        case .extensionRequest: 40
        case .loadRequest: 41
        case .loadResult: 42
        case .completeRequest: 43
        case .cancelledRequest: 44
        case .requestAcknowledged: 45
        case .pointMessage: 46
        }
    }

    /// The message's name, as docs/wire.proto spells it, for logs and errors.
    public var name: String {
        switch self {
        case .hello: "Hello"
        case .welcome: "Welcome"
        case .failure: "Failure"
        case .goodbye: "Goodbye"
        case .ping: "Ping"
        case .pong: "Pong"
        case .queryExtensions: "QueryExtensions"
        case .queryResult: "QueryResult"
        case .beginRequest: "BeginRequest"
        case .requestStarted: "RequestStarted"
        case .endRequest: "EndRequest"
        case .cancelRequest: "CancelRequest"
        case .requestInterrupted: "RequestInterrupted"
        case .listProcesses: "ListProcesses"
        case .processList: "ProcessList"
        case .closeSession: "CloseSession"
        case .requestBegun: "RequestBegun"
        case .sessionIdle: "SessionIdle"
        case .checkIn: "CheckIn"
        case .openURL: "OpenURL"
        case .openURLResult: "OpenURLResult"
        case .groupContainer: "GroupContainer"
        case .groupContainerResult: "GroupContainerResult"
        case .pickFiles: "PickFiles"
        case .pickedFiles: "PickedFiles"
        case .widgetHasContent: "WidgetHasContent"
        case .widgetHasContentResult: "WidgetHasContentResult"
        case .transferAttach: "TransferAttach"
        case .transferSession: "TransferSession"
        case .transferCreate: "TransferCreate"
        case .transferTaskResult: "TransferTaskResult"
        case .transferCancel: "TransferCancel"
        case .transferAcknowledge: "TransferAcknowledge"
        case .transferUpdate: "TransferUpdate"
        case .transferEvents: "TransferEvents"
        case .extensionRequest: "ExtensionRequest"
        case .loadRequest: "LoadRequest"
        case .loadResult: "LoadResult"
        case .completeRequest: "CompleteRequest"
        case .cancelledRequest: "CancelledRequest"
        case .requestAcknowledged: "RequestAcknowledged"
        case .pointMessage: "PointMessage"
        }
    }

    /// The message's protobuf encoding.
    public func encodedPayload() -> [UInt8] {
        switch self {
        case .hello(let m): m.encoded()
        case .welcome(let m): m.encoded()
        case .failure(let m): m.encoded()
        case .goodbye(let m): m.encoded()
        case .ping(let m), .pong(let m), .listProcesses(let m): m.encoded()
        case .queryExtensions(let m): m.encoded()
        case .queryResult(let m): m.encoded()
        case .beginRequest(let m): m.encoded()
        case .requestStarted(let m): m.encoded()
        case .endRequest(let m), .cancelRequest(let m), .requestAcknowledged(let m): m.encoded()
        case .requestInterrupted(let m): m.encoded()
        case .processList(let m): m.encoded()
        case .closeSession(let m), .sessionIdle(let m): m.encoded()
        case .requestBegun(let m): m.encoded()
        case .checkIn(let m): m.encoded()
        case .openURL(let m): m.encoded()
        case .openURLResult(let m): m.encoded()
        case .groupContainer(let m): m.encoded()
        case .groupContainerResult(let m): m.encoded()
        case .pickFiles(let m): m.encoded()
        case .pickedFiles(let m): m.encoded()
        case .widgetHasContent(let m): m.encoded()
        case .widgetHasContentResult(let m): m.encoded()
        case .transferAttach(let m): m.encoded()
        case .transferSession(let m): m.encoded()
        case .transferCreate(let m): m.encoded()
        case .transferTaskResult(let m): m.encoded()
        case .transferCancel(let m): m.encoded()
        case .transferAcknowledge(let m): m.encoded()
        case .transferUpdate(let m): m.encoded()
        case .transferEvents(let m): m.encoded()
        case .extensionRequest(let m), .completeRequest(let m): m.encoded()
        case .loadRequest(let m): m.encoded()
        case .loadResult(let m): m.encoded()
        case .cancelledRequest(let m): m.encoded()
        case .pointMessage(let m): m.encoded()
        }
    }

    /// The whole frame for this message, announcing `descriptorCount` descriptors.
    /// Throws if the payload is larger than a frame may carry.
    public func frameBytes(descriptorCount: Int = 0) throws(WireError) -> [UInt8] {
        let payload = encodedPayload()
        guard payload.count <= Frame.maximumPayloadSize else {
            throw WireError(.messageTooLarge, at: 0, "\(name) encodes to \(payload.count) bytes; a frame carries at most \(Frame.maximumPayloadSize). Send large data as a descriptor")
        }
        guard descriptorCount <= Frame.maximumDescriptors else {
            throw WireError(.messageTooLarge, at: 0, "\(name) would carry \(descriptorCount) descriptors; a frame carries at most \(Frame.maximumDescriptors)")
        }
        return Frame(type: type, descriptorCount: descriptorCount, payload: payload[...]).bytes
    }

    /// Decodes a frame's payload by its type.
    public init(_ frame: Frame) throws(WireError) {
        let p = frame.payload
        switch frame.type {
        case 1: self = .hello(try Hello(decoding: p))
        case 2: self = .welcome(try Welcome(decoding: p))
        case 3: self = .failure(try Failure(decoding: p))
        case 4: self = .goodbye(try Goodbye(decoding: p))
        case 5: self = .ping(try Call(decoding: p))
        case 6: self = .pong(try Call(decoding: p))
        case 10: self = .queryExtensions(try QueryExtensions(decoding: p))
        case 11: self = .queryResult(try QueryResult(decoding: p))
        case 12: self = .beginRequest(try BeginRequest(decoding: p))
        case 13: self = .requestStarted(try RequestStarted(decoding: p))
        case 14: self = .endRequest(try RequestReference(decoding: p))
        case 15: self = .cancelRequest(try RequestReference(decoding: p))
        case 16: self = .requestInterrupted(try RequestInterrupted(decoding: p))
        case 17: self = .listProcesses(try Call(decoding: p))
        case 18: self = .processList(try ProcessList(decoding: p))
        case 19: self = .closeSession(try SessionReference(decoding: p))
        case 20: self = .requestBegun(try RequestBegun(decoding: p))
        case 21: self = .sessionIdle(try SessionReference(decoding: p))
        case 30: self = .checkIn(try CheckIn(decoding: p))
        case 31: self = .openURL(try OpenURL(decoding: p))
        case 32: self = .openURLResult(try OpenURLResult(decoding: p))
        case 33: self = .groupContainer(try GroupContainer(decoding: p))
        case 34: self = .groupContainerResult(try GroupContainerResult(decoding: p))
        case 35: self = .pickFiles(try PickFiles(decoding: p))
        case 36: self = .pickedFiles(try PickedFiles(decoding: p))
        case 37: self = .widgetHasContent(try WidgetHasContent(decoding: p))
        case 38: self = .widgetHasContentResult(try WidgetHasContentResult(decoding: p))
        case 50: self = .transferAttach(try TransferAttach(decoding: p))
        case 51: self = .transferSession(try TransferSession(decoding: p))
        case 52: self = .transferCreate(try TransferCreate(decoding: p))
        case 53: self = .transferTaskResult(try TransferTaskResult(decoding: p))
        case 54: self = .transferCancel(try TransferCancel(decoding: p))
        case 55: self = .transferAcknowledge(try TransferAcknowledge(decoding: p))
        case 56: self = .transferUpdate(try TransferUpdate(decoding: p))
        case 57: self = .transferEvents(try TransferEvents(decoding: p))
        case 40: self = .extensionRequest(try RequestItems(decoding: p))
        case 41: self = .loadRequest(try LoadRequest(decoding: p))
        case 42: self = .loadResult(try LoadResult(decoding: p))
        case 43: self = .completeRequest(try RequestItems(decoding: p))
        case 44: self = .cancelledRequest(try CancelledRequest(decoding: p))
        case 45: self = .requestAcknowledged(try RequestReference(decoding: p))
        case 46: self = .pointMessage(try PointMessage(decoding: p))
        default: throw WireError(.unknownMessageType, at: 0, "message type \(frame.type) is not defined in protocol version \(WireVersion.current)")
        }
    }
}

extension WireMessage {
    /// For an answer to a call, the call's number: a `Failure`, `Pong`, `QueryResult`,
    /// `RequestStarted`, `ProcessList`, `OpenURLResult`, `GroupContainerResult`,
    /// `PickedFiles`, `WidgetHasContentResult`, `TransferSession` or `TransferTaskResult`.
    /// Nil for every other message.
    public var callNumber: UInt64? {
        switch self {
        case .failure(let m): m.call == 0 ? nil : m.call
        case .pong(let m): m.call
        case .queryResult(let m): m.call
        case .requestStarted(let m): m.call
        case .processList(let m): m.call
        case .openURLResult(let m): m.call
        case .groupContainerResult(let m): m.call
        case .pickedFiles(let m): m.call
        case .widgetHasContentResult(let m): m.call
        case .transferSession(let m): m.call
        case .transferTaskResult(let m): m.call
        default: nil
        }
    }
}
