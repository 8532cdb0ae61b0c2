import Foundation

/// Foundation's bridging conformances that a program linked with `-static-stdlib` would
/// otherwise lack, named here so that every program linking AppexCore has them.
///
/// A static link takes an object file from Foundation's archive only when something refers to
/// one of its symbols. Nothing refers to the file that makes `Array` (or `Set`, `Decimal`,
/// `IndexPath` and the others below) `_ObjectiveCBridgeable`, so a static program has no such
/// conformance, and an array handed to Foundation as `Any` is not bridged to an `NSArray`.
/// `UserDefaults.set([1], forKey:)` then traps in CoreFoundation, and
/// `PropertyListSerialization` refuses the array as "Not A Type". Referring to the
/// conformances here makes the linker take them in; a program linked to the shared libraries
/// has them anyway (`StaticFoundationTests`). The function is public only so that no
/// optimisation drops it; nothing needs to call it.
public func _foundationBridgingLinkage() -> [any _ObjectiveCBridgeable.Type] {
    [[Int].self, Set<Int>.self, Decimal.self, IndexPath.self, DateInterval.self,
     URLQueryItem.self, URLComponents.self, DateComponents.self]
}
