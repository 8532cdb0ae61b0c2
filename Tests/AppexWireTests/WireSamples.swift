import AppexCore
import AppexWire
import Foundation

/// Messages with non-default values in every field, one or more per ``WireMessage`` case,
/// shared by the round-trip, unknown-field, byte-split and fuzz tests.
enum WireSamples {
    static let firstID = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
    static let secondID = UUID(uuidString: "01234567-89AB-CDEF-FEDC-BA9876543210")!
    static let thirdID = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!

    /// A property list with every kind of value, nested, including the edges of each kind.
    static let everyPlistKind: [String: PropertyListValue] = [
        "string": .string("héllo ✓ 𝄞"),
        "empty string": .string(""),
        "negative": .integer(-42),
        "zero": .integer(0),
        "max": .integer(.max),
        "min": .integer(.min),
        "real": .real(-3.25),
        "tiny": .real(.leastNonzeroMagnitude),
        "infinite": .real(-.infinity),
        "true": .boolean(true),
        "false": .boolean(false),
        "data": .data(Data([0, 1, 0x7F, 0x80, 0xFE, 0xFF])),
        "empty data": .data(Data()),
        "date": .date(Date(timeIntervalSinceReferenceDate: -1234.5)),
        "epoch": .date(Date(timeIntervalSinceReferenceDate: 0)),
        "array": .array([.integer(1), .array([]), .dictionary([:]), .array([.string("deep"), .boolean(false)])]),
        "empty array": .array([]),
        "dictionary": .dictionary(["inner": .array([.real(0.5)]), "": .string("empty key")]),
        "empty dictionary": .dictionary([:]),
    ]

    static let attributedTitle = AttributedText(text: "Tïtle 👍", runs: [
        .init(location: 0, length: 3, attributes: PlistDictionary(["NSFont": .string("Mono"), "size": .real(12)])),
        .init(location: 5, length: 2, attributes: PlistDictionary()),
        .init(location: 0, length: 0, attributes: PlistDictionary(everyPlistKind)),
    ])

    static let errorInfo = ErrorInfo(domain: "NSCocoaErrorDomain", code: -1009, message: "The network is offline.",
                                     recoverySuggestion: "Connect and try again.")

    /// Every kind of payload a representation or load can carry.
    static let payloads: [Payload] = [
        .data(Data([1, 2, 3, 0])),
        .data(Data()),
        .descriptor(slot: 2, length: 1 << 40, filename: "photo.jpg"),
        .descriptor(slot: 0, length: 0, filename: ""),
        .item(.dictionary(everyPlistKind)),
        .item(.integer(0)),
        .item(.string("")),
        .url("https://example.com/a?b=c#d"),
        .url(""),
        .error(errorInfo),
        .error(ErrorInfo(domain: "", code: 0, message: "")),
    ]

    /// A task well along, with every field set.
    static let transferTask = TransferTaskInfo(taskIdentifier: 1, id: firstID.uuidString, kind: "upload", url: "https://example.com/up", method: "PUT",
                                               state: "running", bytesSent: 1 << 33, bytesExpectedToSend: 1 << 34, bytesReceived: 1_234,
                                               bytesExpectedToReceive: -1, statusCode: 503, error: "the server answered 503 Service Unavailable",
                                               errorCode: -1011, owner: "com.example.notes.share", resumable: true, resumedAtOffset: 0,
                                               responseHeaders: [TransferHeader(name: "ETag", value: "\"v1\""), TransferHeader(name: "Set-Cookie", value: "a=1")])

    static let richItem = WireItem(
        attributedTitle: attributedTitle,
        attributedContentText: AttributedText(text: ""),
        userInfo: everyPlistKind,
        attachments: [
            WireAttachment(providerID: 1, suggestedName: "notes.txt", representations: [
                WireRepresentation(typeIdentifier: "public.plain-text", kind: .data),
                WireRepresentation(typeIdentifier: "public.file-url", kind: .file, opensInPlace: true),
                WireRepresentation(typeIdentifier: "public.url", kind: .item),
            ], preview: WireRepresentation(typeIdentifier: WireRepresentation.previewTypeIdentifier, kind: .item,
                                           payload: .data(Data([0x89, 0x50, 0x4E, 0x47])))),
            WireAttachment(providerID: .max, suggestedName: "", representations: []),
            WireAttachment(providerID: 0, suggestedName: nil, representations: payloads.enumerated().map { index, payload in
                WireRepresentation(typeIdentifier: "com.example.type\(index)", kind: .file, opensInPlace: index % 2 == 0, payload: payload)
            }),
        ]
    )

    static let activationItems = ActivationItems([
        .init(attributedTitle: "Title", attributedContentText: "Some text", userInfo: everyPlistKind, attachments: [
            .init(registeredTypeIdentifiers: ["public.jpeg", "public.image"], suggestedName: "a.jpg", fileSize: 123_456_789),
            .init(registeredTypeIdentifiers: ["public.url"], suggestedName: "", fileSize: 0),
            .init(registeredTypeIdentifiers: [], suggestedName: nil, fileSize: nil),
        ]),
        .init(attributedTitle: "", attributedContentText: nil, userInfo: [:], attachments: []),
        .init(),
    ])

    static let summary = ExtensionSummary(identifier: "com.example.notes.share", point: "com.apple.share-services",
                                          displayName: "Notes ✎", version: "1.2.3", containingApp: "com.example.notes",
                                          bundlePath: "/home/u/.local/share/appex/Applications/Notes.app/PlugIns/NotesShare.appex",
                                          isEnabled: true, javaScriptPreprocessingFile: "Notes")

    /// At least one message of every case, with no field left at its default.
    static let all: [WireMessage] = [
        .hello(Hello(role: .extension, name: "NotesShare", minimumVersion: 1, maximumVersion: 7)),
        .hello(Hello(role: .sessionHost, name: "", minimumVersion: .max, maximumVersion: 0)),
        .welcome(Welcome(version: 3, pid: 123_456, name: "appexd")),
        .welcome(Welcome(version: .max, pid: -7, name: "negative pid")),
        .failure(Failure(call: 99, error: errorInfo)),
        .failure(Failure(call: 0, error: ErrorInfo(domain: "appex", code: .min, message: "handshake refused"))),
        .goodbye(Goodbye(reason: "shutting down", graceMilliseconds: 2500)),
        .ping(Call(.max)),
        .pong(Call(1 << 40)),
        .queryExtensions(QueryExtensions(call: 4, point: "com.apple.share-services", identifier: "com.example.x",
                                         items: activationItems, includeDisabled: true)),
        .queryResult(QueryResult(call: 5, extensions: [summary, ExtensionSummary(identifier: "b", point: "p", displayName: "",
                                                                                 version: "", containingApp: "", bundlePath: "", isEnabled: false)])),
        .beginRequest(BeginRequest(call: 6, requestID: firstID, extensionIdentifier: "com.example.notes.share")),
        .requestStarted(RequestStarted(call: 7, requestID: secondID, sessionID: 77, pid: 31_337, isNewSession: true)),
        .endRequest(RequestReference(firstID)),
        .cancelRequest(RequestReference(secondID)),
        .requestInterrupted(RequestInterrupted(requestIDs: [firstID, secondID, thirdID], sessionID: 9, reason: Interruption(
            kind: .memoryLimit, signal: 9, exitStatus: -1, limit: 1 << 26, measured: 1 << 27, message: "over its limit"))),
        .requestInterrupted(RequestInterrupted(requestIDs: [], sessionID: 0, reason: Interruption(
            kind: .crashed, signal: 0, exitStatus: nil, message: "present but zero"))),
        .listProcesses(Call(8)),
        .closeSession(SessionReference(77)),
        .requestBegun(RequestBegun(requestID: thirdID, sessionID: 78)),
        .sessionIdle(SessionReference(79)),
        .processList(ProcessList(call: 10, processes: [
            ExtensionProcess(pid: 100, extensionIdentifier: "com.example.notes.share", hostPID: -1, hostName: "notes",
                             residentBytes: 9 << 20, ageMilliseconds: 1500, state: "running", activeRequests: 2, memoryLimit: 120 << 20),
            ExtensionProcess(pid: .max, extensionIdentifier: "", hostPID: .min, hostName: "", residentBytes: .max,
                             ageMilliseconds: .max, state: "idle", activeRequests: Int(UInt32.max), memoryLimit: 0),
        ])),
        .checkIn(CheckIn(bundleIdentifier: "com.example.notes.share")),
        .openURL(OpenURL(call: 11, url: "notes://open?id=1")),
        .openURL(OpenURL(call: 11, url: "notes://note/Ideas-1", requestID: firstID, extensionIdentifier: "com.example.notes.widget",
                         extensionName: "Latest Note", appName: "Notes")),
        .openURLResult(OpenURLResult(call: 12, opened: true, reason: "its containing app's scheme")),
        .openURLResult(OpenURLResult(call: 13, opened: false, reason: "")),
        .groupContainer(GroupContainer(call: 14, groupIdentifier: "group.com.example.notes")),
        .groupContainerResult(GroupContainerResult(call: 14, path: "/home/u/.local/share/appex/Groups/group.com.example.notes")),
        .groupContainerResult(GroupContainerResult(call: 15, path: "", reason: "com.example.notes is not entitled to group.x")),
        .pickFiles(PickFiles(call: 16, requestID: secondID, message: "Choose a photo", allowedTypes: ["public.image", "public.pdf"],
                             allowsMultiple: true, extensionIdentifier: "com.example.notes.share", extensionName: "Notes")),
        .pickedFiles(PickedFiles(call: 16, files: [PickedFile(slot: 0, filename: "a.jpg", typeIdentifier: "public.jpeg"),
                                                   PickedFile(slot: 1, filename: "b.pdf", typeIdentifier: "com.adobe.pdf")])),
        .pickedFiles(PickedFiles(call: 17, reason: "this host offers no file picker")),
        .widgetHasContent(WidgetHasContent(call: 18, widgetIdentifier: "com.example.notes.widget", hasContent: true)),
        .widgetHasContent(WidgetHasContent(call: 19, widgetIdentifier: "com.example.notes.widget", hasContent: false)),
        .widgetHasContentResult(WidgetHasContentResult(call: 18)),
        .widgetHasContentResult(WidgetHasContentResult(call: 19, reason: "only its containing app, com.example.notes, and that app's extensions may")),
        .transferAttach(TransferAttach(call: 20, sessionIdentifier: "com.example.notes.uploads", groupIdentifier: "group.com.example.notes")),
        .transferSession(TransferSession(call: 20, tasks: [transferTask, TransferTaskInfo(taskIdentifier: 2, id: secondID.uuidString, kind: "download",
                                                                                           url: "https://example.com/a.zip", method: "GET", state: "waiting")])),
        .transferSession(TransferSession(call: 21, tasks: [])),
        .transferCreate(TransferCreate(call: 22, sessionIdentifier: "com.example.notes.uploads", kind: "upload", url: "https://example.com/up",
                                       method: "PUT", headers: [TransferHeader(name: "Content-Type", value: "video/mp4")],
                                       timeoutMilliseconds: 30000, resourceTimeoutMilliseconds: 86_400_000, sendsNoLaunchEvents: true,
                                       earliestBeginMilliseconds: 60_000)),
        .transferTaskResult(TransferTaskResult(call: 22, task: transferTask)),
        .transferCancel(TransferCancel(call: 23, sessionIdentifier: "com.example.notes.uploads", taskIdentifier: 1)),
        .transferCancel(TransferCancel(call: 24, sessionIdentifier: "com.example.notes.uploads", taskIdentifier: 2, producesResumeData: true)),
        .transferCreate(TransferCreate(call: 25, sessionIdentifier: "com.example.notes.uploads", kind: "download", url: "https://example.com/a.zip",
                                       method: "GET", resumesTask: secondID.uuidString)),
        .transferAcknowledge(TransferAcknowledge(sessionIdentifier: "com.example.notes.uploads", sequence: 41)),
        .transferUpdate(TransferUpdate(sessionIdentifier: "com.example.notes.uploads", task: transferTask)),
        .transferEvents(TransferEvents(sessionIdentifier: "com.example.notes.uploads", events: [
            TransferEventInfo(sequence: 40, kind: "finishedDownloading", location: "/home/u/.local/share/appex/Groups/g/Library/Caches/Transfers/x", task: transferTask),
            TransferEventInfo(sequence: 41, kind: "receivedData", task: transferTask, data: Data("{\"id\": 7}".utf8)),
            TransferEventInfo(sequence: 42, kind: "completed", task: transferTask),
        ], backlog: true)),
        .transferEvents(TransferEvents(sessionIdentifier: "s", events: [])),
        .extensionRequest(RequestItems(requestID: firstID, items: [richItem, WireItem()])),
        .loadRequest(LoadRequest(loadID: 14, requestID: secondID, providerID: 3, typeIdentifier: "public.image", kind: .item)),
        .loadResult(LoadResult(loadID: 15, typeIdentifier: "public.jpeg", payload: .descriptor(slot: 1, length: 4096, filename: "a.jpg"))),
        .completeRequest(RequestItems(requestID: thirdID, items: [richItem], withoutAcknowledgement: true)),
        .cancelledRequest(CancelledRequest(requestID: firstID, error: errorInfo)),
        .requestAcknowledged(RequestReference(thirdID)),
        .pointMessage(PointMessage(requestID: secondID, sequence: 3, name: "sheet", body: Array(#"{"contentText":"hi ✎"}"#.utf8))),
        .pointMessage(PointMessage(requestID: thirdID, sequence: .max, name: "", body: [])),
    ]

    /// Every message's frame, each announcing as many descriptors as its index modulo 3.
    static var frames: [[UInt8]] {
        all.enumerated().map { index, message in try! message.frameBytes(descriptorCount: index % 3) }
    }
}
