import Foundation
import NotificationCenter
import Social
import Testing
import UniformTypeIdentifiers

/// Apple's framework names resolve, each to what it holds on Apple's platforms, so that an
/// extension's imports stay as they are.
@Suite struct FrameworkNamesTests {
    @Test func uniformTypeIdentifiersHoldsUTTypeAndItsConstants() {
        #expect(UTType.image.identifier == "public.image")
        #expect(UTType("public.jpeg")?.conforms(to: .image) == true)
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension")
    }

    @Test @MainActor func socialAndNotificationCenterHoldTheirPointsTypes() {
        let composer: SLComposeServiceViewController.Type = SLComposeServiceViewController.self
        let result: NCUpdateResult = .newData
        #expect("\(composer)" == "SLComposeServiceViewController")
        #expect(result == .newData)
    }

    /// The framework named NotificationCenter doesn't hide Foundation's class of that name.
    @Test func foundationsNotificationCenterIsStillFoundByItsName() {
        let center: NotificationCenter = NotificationCenter.default
        let name = Notification.Name("FrameworkNamesTests")
        let observed = Locked(false)
        let token = center.addObserver(forName: name, object: nil, queue: nil) { _ in observed.set(true) }
        center.post(name: name, object: nil)
        center.removeObserver(token)
        #expect(observed.value)
    }
}

/// A value set from a callback, for a test to read. Unchecked: every access holds the lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored } }
}
