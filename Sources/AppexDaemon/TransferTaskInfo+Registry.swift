import AppexRegistry
import AppexWire
import Foundation

extension TransferTaskInfo {
    /// `task` as its session's process sees it: the answer's header fields once it has ended.
    init(_ task: TransferTask) {
        self.init(taskIdentifier: UInt64(task.taskIdentifier), id: task.id.uuidString, kind: task.kind.rawValue, url: task.request.url.absoluteString,
                  method: task.request.method, state: task.state.rawValue, bytesSent: task.bytesSent,
                  bytesExpectedToSend: task.bytesExpectedToSend, bytesReceived: task.bytesReceived,
                  bytesExpectedToReceive: task.bytesExpectedToReceive, statusCode: task.statusCode ?? 0, error: task.error ?? "",
                  errorCode: task.errorCode?.rawValue ?? 0, owner: task.owner, resumable: task.resumableUntil != nil,
                  resumedAtOffset: task.resumedAtOffset ?? -1,
                  responseHeaders: task.state.isFinal ? (task.responseHeaders ?? []).map { TransferHeader(name: $0.name, value: $0.value) } : [])
    }
}
