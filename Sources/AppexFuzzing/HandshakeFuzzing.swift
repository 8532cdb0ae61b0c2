import AppexWire

/// The handshake that opens every channel: whatever a peer sends first, the accepting side
/// agrees only to a version both sides speak, and the connecting side accepts only an answer
/// it can use. The input is a stream: its first frame is the connecting side's greeting, and
/// its second the accepting side's answer.
enum HandshakeFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        var decoder = FrameDecoder()
        decoder.receive(input)
        var messages: [WireMessage] = []
        while messages.count < 2, let frame = try? decoder.nextFrame() {
            guard let message = try? WireMessage(frame) else { return }
            messages.append(message)
        }
        guard let greeting = messages.first else { return }
        try checkAgreement(to: greeting)
        try checkConfirmation(of: messages.last ?? greeting)
    }

    static func checkAgreement(to greeting: WireMessage) throws(InvariantViolation) {
        let agreed: UInt32
        do {
            agreed = try Handshake.agree(to: greeting)
        } catch {
            try InvariantViolation.require(error.code == .handshake && !error.message.isEmpty, "a refused greeting without its reason: \(error)")
            return
        }
        guard case .hello(let hello) = greeting else { throw InvariantViolation("agreed to \(greeting.name), which is not Hello") }
        try InvariantViolation.require(hello.protocolName == Hello.protocolName, "agreed to protocol \"\(hello.protocolName)\"")
        try InvariantViolation.require(Handshake.supported.contains(agreed), "agreed to version \(agreed), which this side doesn't speak")
        try InvariantViolation.require((hello.minimumVersion...hello.maximumVersion).contains(agreed), "agreed to version \(agreed), which the peer didn't offer")
        try InvariantViolation.require(agreed == min(hello.maximumVersion, WireVersion.current), "agreed to \(agreed), not the highest version both speak")
    }

    static func checkConfirmation(of answer: WireMessage) throws(InvariantViolation) {
        let spoken: UInt32
        do {
            spoken = try Handshake.confirm(answer)
        } catch {
            try InvariantViolation.require(error.code == .handshake && !error.message.isEmpty, "a refused answer without its reason: \(error)")
            return
        }
        guard case .welcome(let welcome) = answer else { throw InvariantViolation("took \(answer.name) as a welcome") }
        try InvariantViolation.require(spoken == welcome.version && Handshake.supported.contains(spoken), "took version \(spoken), which was never offered")
    }
}
