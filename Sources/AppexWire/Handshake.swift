/// The handshake's rules, the same on every channel: the connecting side offers a range of
/// versions in ``Hello``, the accepting side answers with the highest version both speak in
/// ``Welcome``, or refuses, and the connecting side checks the answer before it trusts it.
///
/// ```swift
/// let version = try Handshake.agree(to: firstMessage)      // accepting side
/// let spoken = try Handshake.confirm(answer)               // connecting side
/// ```
public enum Handshake {
    /// The versions this build speaks.
    public static let supported = WireVersion.minimum...WireVersion.current

    /// The version to speak with a peer whose first message is `first`.
    ///
    /// - Throws: ``WireError/Code/handshake`` saying why not: the message is not a `Hello`,
    ///   names another protocol, offers an empty range, or shares no version with `supported`.
    public static func agree(to first: WireMessage, supporting supported: ClosedRange<UInt32> = supported) throws(WireError) -> UInt32 {
        guard case .hello(let hello) = first else {
            throw WireError(.handshake, at: 0, "the first message must be Hello, not \(first.name)")
        }
        guard hello.protocolName == Hello.protocolName else {
            throw WireError(.handshake, at: 0, "the peer speaks protocol \"\(hello.protocolName.prefix(64))\", not \"\(Hello.protocolName)\"")
        }
        guard hello.minimumVersion <= hello.maximumVersion else {
            throw WireError(.handshake, at: 0, "the peer offers versions \(hello.minimumVersion)–\(hello.maximumVersion), an empty range")
        }
        let agreed = min(hello.maximumVersion, supported.upperBound)
        guard agreed >= hello.minimumVersion, agreed >= supported.lowerBound else {
            throw WireError(.handshake, at: 0, "this side speaks protocol \"appex\" versions \(supported.lowerBound)–\(supported.upperBound); the peer offered \(hello.minimumVersion)–\(hello.maximumVersion)")
        }
        return agreed
    }

    /// The version the accepting side chose in `answer` to a `Hello` that offered `offered`.
    ///
    /// - Throws: ``WireError/Code/handshake`` with the accepting side's reason if it refused,
    ///   or saying what is wrong if it answered with something else or a version never offered.
    public static func confirm(_ answer: WireMessage, offered: ClosedRange<UInt32> = supported) throws(WireError) -> UInt32 {
        switch answer {
        case .welcome(let welcome):
            guard offered.contains(welcome.version) else {
                throw WireError(.handshake, at: 0, "the peer chose version \(welcome.version), outside the \(offered.lowerBound)–\(offered.upperBound) offered")
            }
            return welcome.version
        case .failure(let failure):
            throw WireError(.handshake, at: 0, "the peer refused the handshake: \(failure.error.message)")
        default:
            throw WireError(.handshake, at: 0, "the peer answered Hello with \(answer.name), not Welcome")
        }
    }
}
