/// A key the user pressed, as the interactive hosts read it.
enum Key: Equatable {
    case up, down, left, right, home, end
    case enter, escape, tab, backTab, backspace, delete
    /// An escape sequence no host uses, such as a function key: never read as Escape, which cancels.
    case unrecognized
    /// A control key other than those above: Ctrl-D is `.control("d")`.
    case control(Character)
    /// A character to type.
    case character(Character)

    /// The key of an escape sequence `CSI parameters final`.
    init(sequence parameters: [UInt8], final: UInt8) {
        switch (parameters, final) {
        case (_, UInt8(ascii: "A")): self = .up
        case (_, UInt8(ascii: "B")): self = .down
        case (_, UInt8(ascii: "C")): self = .right
        case (_, UInt8(ascii: "D")): self = .left
        case (_, UInt8(ascii: "H")), ([UInt8(ascii: "1")], UInt8(ascii: "~")): self = .home
        case (_, UInt8(ascii: "F")), ([UInt8(ascii: "4")], UInt8(ascii: "~")): self = .end
        case ([UInt8(ascii: "3")], UInt8(ascii: "~")): self = .delete
        case (_, UInt8(ascii: "Z")): self = .backTab
        default: self = .unrecognized
        }
    }

    /// The key a byte starts; `more` reads the rest of a UTF-8 character.
    init(byte: UInt8, more: () -> UInt8?) {
        switch byte {
        case 0x0D, 0x0A: self = .enter
        case 0x09: self = .tab
        case 0x7F, 0x08: self = .backspace
        case 0x00..<0x20: self = .control(Character(Unicode.Scalar(byte + 0x60)))
        case 0x20..<0x80: self = .character(Character(Unicode.Scalar(byte)))
        default:
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            var bytes = [byte]
            while bytes.count < length, let next = more() { bytes.append(next) }
            self = .character(String(decoding: bytes, as: UTF8.self).first ?? "\u{FFFD}")
        }
    }
}
