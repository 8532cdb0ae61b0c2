import AppexToday

/// A Today widget's messages, which its host reads from an extension it doesn't trust: each
/// is read or refused with a reason, a view description is accepted only within
/// ``WidgetView/Limits``, and what is accepted is written back to a body that reads the same.
///
/// The first byte of the input chooses the message's name; the rest is its body.
enum WidgetFuzzing {
    static let names = ["content", "present", "update", "displayMode", "followLink", "editing", "dismiss", "ready", "updated", "linkOpened", "bogus"]

    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        guard let selector = input.first else { return }
        let name = names[Int(selector) % names.count]
        let message: WidgetMessage
        do {
            message = try WidgetMessage(name: name, body: Array(input.dropFirst()))
        } catch {
            try InvariantViolation.require(!error.description.isEmpty, "\(name) was refused without a reason")
            return
        }
        try InvariantViolation.require(message.name == name, "a \(name) message was read as \(message.name)")
        if case .content(let content) = message {
            try InvariantViolation.require(content.problem == nil, "a view with a problem was accepted: \(content.problem ?? "")")
        }
        do {
            let again = try WidgetMessage(name: message.name, body: message.body)
            try InvariantViolation.require(again == message, "\(name) reads as another message once written again")
        } catch let violation as InvariantViolation {
            throw violation
        } catch {
            throw InvariantViolation("\(name) was accepted, but the body written for it is refused: \(error)")
        }
    }
}
