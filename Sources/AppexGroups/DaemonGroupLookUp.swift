import AppexIPC
import AppexWire
import Foundation

/// How this process asks appexd for a group's container: with a `GroupContainer` call, made
/// the way this process calls appexd (``DaemonCalls``). appexd answers from the entitlements
/// of the bundle it finds the caller runs.
enum DaemonGroupLookUp {
    static func containerURL(for group: String) -> Result<URL, GroupAccessError> {
        func failure(_ reason: String) -> Result<URL, GroupAccessError> { .failure(GroupAccessError(group: group, reason: reason)) }
        switch DaemonCalls.call(needing: WireVersion.groupContainers, { .groupContainer(GroupContainer(call: $0, groupIdentifier: group)) }) {
        case .success(.groupContainerResult(let result)):
            return result.path.isEmpty ? failure(result.reason) : .success(URL(fileURLWithPath: result.path, isDirectory: true))
        case .success(let other):
            return failure("appexd answered \(other.name)")
        case .failure(let error):
            return failure(error.reason)
        }
    }
}
