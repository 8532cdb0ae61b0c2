import AppexCore
import Foundation

/// Info.plist and entitlements files, in any format Foundation reads: the decoder accepts or
/// refuses with a reason, what it accepts encodes as XML and reads back the same, and
/// reading it as an app's or an extension's manifest records problems instead of trapping.
enum PropertyListFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        let value: PropertyListValue
        do {
            value = try PropertyListValue(decoding: Data(input))
        } catch {
            try InvariantViolation.require(!error.reason.isEmpty, "a refusal without a reason: \(error)")
            return
        }
        try checkRoundTrip(value)
        var diagnostics: [Diagnostic] = []
        _ = BundleInfo.read(value, role: .application, file: "Info.plist", diagnostics: &diagnostics)
        _ = BundleInfo.read(value, role: .appExtension, file: "Info.plist", diagnostics: &diagnostics)
        _ = Entitlements.read(value, file: "app.entitlements", diagnostics: &diagnostics)
        try InvariantViolation.require(diagnostics.allSatisfy { !$0.message.isEmpty }, "a diagnostic without a message")
    }

    /// What was read is written as XML, and that XML reads back as the same value, or is
    /// refused as too large: a terse list (binary with shared references, OpenStep) may stand
    /// for more XML than a list may hold, which the registry refuses at install.
    static func checkRoundTrip(_ value: PropertyListValue) throws(InvariantViolation) {
        let xml: Data
        do {
            xml = try value.xmlData()
        } catch {
            throw InvariantViolation("a property list that decoded can't be written as XML: \(error)")
        }
        do {
            let again = try PropertyListValue(decoding: xml)
            try InvariantViolation.require(again.isSame(as: value), "the XML written for a decoded property list reads back as another value")
        } catch let violation as InvariantViolation {
            throw violation
        } catch let error as PropertyListError where error.code == .tooLarge && xml.count > PropertyListValue.maximumEncodedSize {
            return
        } catch {
            throw InvariantViolation("the XML written for a decoded property list doesn't read back: \(error)")
        }
    }
}

extension PropertyListValue {
    /// Equality in which NaN equals NaN and dates agree to the millisecond, as XML keeps them.
    func isSame(as other: PropertyListValue) -> Bool {
        switch (self, other) {
        case (.real(let a), .real(let b)): a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)): abs(a.timeIntervalSince(b)) < 1
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isSame(as: $1) }
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { value.isSame(as: $0) } ?? false }
        default: self == other
        }
    }
}
