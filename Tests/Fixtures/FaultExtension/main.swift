// The fault extension: a test fixture that misbehaves on purpose, in the way its Info.plist
// asks (see Fault), so the runtime's tests can check that every fault ends the request with
// the right outcome and hangs nothing.
import AppexKit
import Foundation

switch Fault.current {
case .crashAtLaunch:
    abort()
case .neverChecksIn:
    while true { sleep(60) }
default:
    NSExtensionMain()
}
