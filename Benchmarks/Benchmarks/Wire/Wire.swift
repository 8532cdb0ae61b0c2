import AppexWire
import AppexWireSchema
import Benchmark
import Foundation
import SwiftProtobuf

// The wire's codec on the messages of a warm request, through AppexWire's public API: a
// payload encoded from its WireMessage, and a frame decoded back into one. Beside each, in the
// same process, the baseline: the same message as the type protoc-gen-swift generated from
// docs/wire.proto, encoded or decoded by swift-protobuf alone. AppexWire encodes through those
// types since the .proto became the wire's one definition; run before that, the same file
// measured the encoder written by hand (BENCHMARKS.md, "The wire's codec").

/// The host's ExtensionRequest of a warm request: one item with one text attachment.
let extensionRequest = WireMessage.extensionRequest(RequestItems(requestID: UUID(), items: [
    WireItem(attachments: [WireAttachment(providerID: 1, representations: [
        WireRepresentation(typeIdentifier: "public.plain-text", kind: .item),
    ])]),
]))

/// The extension's CompleteRequest: the item back, its text inline.
let completeRequest = WireMessage.completeRequest(RequestItems(requestID: UUID(), items: [
    WireItem(attachments: [WireAttachment(providerID: 1, representations: [
        WireRepresentation(typeIdentifier: "public.plain-text", kind: .item, payload: .item(.string("HELLO"))),
    ])]),
], withoutAcknowledgement: true))

let beginRequest = WireMessage.beginRequest(BeginRequest(call: 7, requestID: UUID(), extensionIdentifier: "org.appex.bench.Echo"))

/// Registers the four benchmarks of `message`, whose generated type is `Schema`.
func codecBenchmarks<Schema: SwiftProtobuf.Message>(_ message: WireMessage, as _: Schema.Type) {
    let payload = message.encodedPayload()
    let frame = Frame(type: message.type, payload: payload[...])
    let generated = try! Schema(serializedBytes: payload)
    Benchmark("Wire \(message.name) encode baseline: the generated message alone") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try generated.serializedBytes() as [UInt8]) }
    }
    Benchmark("Wire \(message.name) encode: AppexWire") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(message.encodedPayload()) }
    }
    Benchmark("Wire \(message.name) decode baseline: the generated message alone") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Schema(serializedBytes: payload)) }
    }
    Benchmark("Wire \(message.name) decode: AppexWire") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try WireMessage(frame)) }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 1_000,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )
    codecBenchmarks(beginRequest, as: Appex_Wire_V1_BeginRequest.self)
    codecBenchmarks(extensionRequest, as: Appex_Wire_V1_ExtensionRequest.self)
    codecBenchmarks(completeRequest, as: Appex_Wire_V1_CompleteRequest.self)
}
