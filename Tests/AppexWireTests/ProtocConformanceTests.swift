import AppexWire
import Foundation
import Testing

/// docs/wire.proto is the wire's one definition: every sample message, as AppexWire encodes
/// it, is what protoc itself reads with that schema, with no field it doesn't know, and what
/// protoc writes back from what it read, byte for byte. Together the samples set every field
/// of all of the schema's messages.
@Suite struct ProtocConformanceTests {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/wire.proto").standardizedFileURL

    @Test(arguments: WireSamples.all)
    func protocReadsTheMessageAndWritesTheSameBytes(_ message: WireMessage) throws {
        let bytes = Data(message.encodedPayload())
        let text = try Self.protoc("--decode=appex.wire.v1.\(message.name)", input: bytes)
        let unknown = String(decoding: text, as: UTF8.self).split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).first?.isNumber == true }
        #expect(unknown.isEmpty, "fields wire.proto doesn't define in \(message.name): \(unknown)")
        #expect(try Self.protoc("--encode=appex.wire.v1.\(message.name)", input: text) == bytes,
                "protoc writes \(message.name) as read from AppexWire's encoding otherwise:\n\(String(decoding: text, as: UTF8.self))")
    }

    /// What a peer in another language leaves out, proto3's default, is what AppexWire reads:
    /// a message read from an empty payload writes back no value, only, at most, the empty
    /// messages its Swift type always holds (a Failure's error). A message with a field
    /// AppexWire requires, such as a request's id, is refused empty instead.
    @Test(arguments: Set(WireSamples.all.map(\.type)).sorted())
    func aFieldLeftOutIsReadAsProto3sDefault(_ type: UInt16) throws {
        guard let empty = try? WireMessage(Frame(type: type, payload: [])) else { return }
        let text = try Self.protoc("--decode=appex.wire.v1.\(empty.name)", input: Data(empty.encodedPayload()))
        let values = String(decoding: text, as: UTF8.self).split(separator: "\n").filter { !$0.hasSuffix("{") && !$0.hasSuffix("}") }
        #expect(values.isEmpty, "\(empty.name), read from nothing, writes \(values)")
    }

    @Test func theSamplesSetEveryFieldOfEveryMessage() throws {
        let schema = try ProtoSchema(String(contentsOf: Self.schema, encoding: .utf8))
        #expect(schema.messages.count == 64, "wire.proto's messages, as docs/wire.md counts them")
        var set: Set<ProtoSchema.FieldName> = []
        for message in WireSamples.all {
            let text = try Self.protoc("--decode=appex.wire.v1.\(message.name)", input: Data(message.encodedPayload()))
            set.formUnion(try schema.fieldsSet(in: String(decoding: text, as: UTF8.self), of: message.name))
        }
        let unset = schema.allFields.subtracting(set).map { "\($0.message).\($0.field)" }.sorted()
        #expect(unset.isEmpty, "no sample sets these fields, so nothing checks them against protoc: \(unset)")
    }

    /// Runs protoc on the schema with `input` as its standard input, and returns its output.
    static func protoc(_ mode: String, input: Data) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("protoc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputFile = folder.appendingPathComponent("in"), outputFile = folder.appendingPathComponent("out")
        try input.write(to: inputFile)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/protoc")
        process.arguments = [mode, "--proto_path=\(schema.deletingLastPathComponent().path)", schema.lastPathComponent]
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProtocFailed(message: "protoc \(mode) exited with \(process.terminationStatus): \(String(decoding: said, as: UTF8.self))")
        }
        return try Data(contentsOf: outputFile)
    }

    struct ProtocFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
