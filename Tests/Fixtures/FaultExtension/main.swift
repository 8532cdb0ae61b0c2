// The fault extension: a test fixture that misbehaves on purpose, in the way its Info.plist
// asks (see Fault), so the runtime's tests can check that every fault ends the request with
// the right outcome and hangs nothing.
import AppexKit
import AppexWire
import Foundation

switch Fault.current {
case .crashAtLaunch:
    abort()
case .neverChecksIn:
    while true { sleep(60) }
case .checksInAsAnother:
    for message: WireMessage in [.hello(Hello(role: .extension, name: "impostor")), .checkIn(CheckIn(bundleIdentifier: "com.example.someone-else"))] {
        let frame = try message.frameBytes()
        _ = frame.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
    }
    while true { sleep(60) }
default:
    NSExtensionMain()
}
