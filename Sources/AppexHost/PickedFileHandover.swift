import AppexCore
import AppexSystem
import AppexWire
import Foundation
import Glibc

/// The files a host's user picked, opened read-only for appexd to hand to the extension:
/// what a ``PickedFiles`` answer carries.
struct PickedFileHandover {
    var files: [PickedFile] = []
    var descriptors: [FileDescriptor] = []
    /// The files that were not handed over, and why.
    var dropped: [String] = []

    /// Opens each of `urls` that is a regular file of an allowed type; at most one unless
    /// `request` allows several, and at most as many as one frame carries.
    init(_ urls: [URL], for request: FilePickerRequest) {
        let allowed = request.allowedContentTypes.compactMap { UTType($0) }
        for url in urls {
            if !request.allowsMultipleSelection, !files.isEmpty {
                dropped.append("\(url.path): the extension asked for one file")
                continue
            }
            if files.count == Frame.maximumDescriptors {
                dropped.append("\(url.path): one answer carries at most \(Frame.maximumDescriptors) files")
                continue
            }
            let type = UTType(filenameExtension: url.pathExtension) ?? .data
            guard allowed.isEmpty || allowed.contains(where: type.conforms(to:)) else {
                dropped.append("\(url.path) is \(type.identifier), not one of \(request.allowedContentTypes.joined(separator: ", "))")
                continue
            }
            do {
                let file = try FileDescriptor.open(url.path, flags: O_RDONLY | O_NOCTTY | O_NONBLOCK)
                guard try file.isRegularFile() else {
                    file.close()
                    dropped.append("\(url.path) is not a regular file")
                    continue
                }
                files.append(PickedFile(slot: descriptors.count, filename: url.lastPathComponent, typeIdentifier: type.identifier))
                descriptors.append(file)
            } catch {
                dropped.append("\(error)")
            }
        }
    }

    /// The answer to `call`: the files, or with none, why.
    func answer(_ call: UInt64) -> PickedFiles {
        PickedFiles(call: call, files: files, reason: files.isEmpty && !dropped.isEmpty ? dropped.joined(separator: "; ") : "")
    }
}
