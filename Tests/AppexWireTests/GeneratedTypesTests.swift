import AppexWire
import AppexWireSchema
import Foundation
import SwiftProtobuf
import Testing

/// The Swift types protoc-gen-swift generates from docs/wire.proto (AppexWireSchema, for Swift
/// programs that would rather use swift-protobuf) read every sample as AppexWire writes it,
/// knowing every field, and write the same bytes back: a second implementation of the .proto,
/// beside protoc's (ProtocConformanceTests).
@Suite struct GeneratedTypesTests {
    /// The generated type of each message a frame can carry, by its name in the .proto.
    static let types: [String: any SwiftProtobuf.Message.Type] = Dictionary(uniqueKeysWithValues: [
        Appex_Wire_V1_Hello.self,
        Appex_Wire_V1_Welcome.self,
        Appex_Wire_V1_Failure.self,
        Appex_Wire_V1_Goodbye.self,
        Appex_Wire_V1_Ping.self,
        Appex_Wire_V1_Pong.self,
        Appex_Wire_V1_QueryExtensions.self,
        Appex_Wire_V1_QueryResult.self,
        Appex_Wire_V1_BeginRequest.self,
        Appex_Wire_V1_RequestStarted.self,
        Appex_Wire_V1_EndRequest.self,
        Appex_Wire_V1_CancelRequest.self,
        Appex_Wire_V1_RequestInterrupted.self,
        Appex_Wire_V1_ListProcesses.self,
        Appex_Wire_V1_ProcessList.self,
        Appex_Wire_V1_CloseSession.self,
        Appex_Wire_V1_RequestBegun.self,
        Appex_Wire_V1_SessionIdle.self,
        Appex_Wire_V1_CheckIn.self,
        Appex_Wire_V1_OpenURL.self,
        Appex_Wire_V1_OpenURLResult.self,
        Appex_Wire_V1_GroupContainer.self,
        Appex_Wire_V1_GroupContainerResult.self,
        Appex_Wire_V1_PickFiles.self,
        Appex_Wire_V1_PickedFiles.self,
        Appex_Wire_V1_WidgetHasContent.self,
        Appex_Wire_V1_WidgetHasContentResult.self,
        Appex_Wire_V1_TransferAttach.self,
        Appex_Wire_V1_TransferSession.self,
        Appex_Wire_V1_TransferCreate.self,
        Appex_Wire_V1_TransferTaskResult.self,
        Appex_Wire_V1_TransferCancel.self,
        Appex_Wire_V1_TransferAcknowledge.self,
        Appex_Wire_V1_TransferUpdate.self,
        Appex_Wire_V1_TransferEvents.self,
        Appex_Wire_V1_ExtensionRequest.self,
        Appex_Wire_V1_LoadRequest.self,
        Appex_Wire_V1_LoadResult.self,
        Appex_Wire_V1_CompleteRequest.self,
        Appex_Wire_V1_CancelledRequest.self,
        Appex_Wire_V1_RequestAcknowledged.self,
        Appex_Wire_V1_PointMessage.self,
    ].map { (String($0.protoMessageName.split(separator: ".").last!), $0) })

    @Test func everyMessageTypeHasItsGeneratedType() {
        #expect(Set(WireSamples.all.map(\.name)).subtracting(Self.types.keys).isEmpty)
    }

    @Test(arguments: WireSamples.all)
    func theGeneratedTypeReadsEveryFieldAndWritesTheSameBytes(_ message: WireMessage) throws {
        let bytes = message.encodedPayload()
        let type = try #require(Self.types[message.name])
        let decoded = try type.init(serializedBytes: bytes, extensions: nil, partial: false, options: BinaryDecodingOptions())
        #expect(decoded.unknownFields.data.isEmpty, "\(message.name) has fields its generated type doesn't know")
        #expect(try decoded.serializedBytes() as [UInt8] == bytes, "swift-protobuf writes \(message.name) otherwise")
    }
}
