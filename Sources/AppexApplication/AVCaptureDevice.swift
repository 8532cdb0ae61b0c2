import Foundation

/// A camera or microphone of this machine, as Apple's `AVCaptureDevice` names one: what only
/// a containing app may use, never an extension. AppexKit declares `AVCaptureDevice`
/// unavailable, and the sandbox gives an extension no device nodes.
///
/// Cameras are the Video4Linux capture devices (`/sys/class/video4linux`, `/dev/videoN`);
/// microphones are the ALSA capture devices (`/proc/asound/pcm`, `/dev/snd/pcmCcDdc`).
/// This finds them and says whether this user may open them; capturing is not here yet.
public final class AVCaptureDevice: Sendable {
    /// What a device captures.
    public enum MediaType: String, Sendable, Hashable {
        case video = "vide"
        case audio = "soun"
    }

    /// Whether this process may use a kind of device.
    public enum AuthorizationStatus: Int, Sendable {
        case notDetermined = 0
        case restricted = 1
        case denied = 2
        case authorized = 3
    }

    /// The device node, such as `/dev/video0`.
    public let uniqueID: String
    /// The name the driver gives it.
    public let localizedName: String
    public let mediaType: MediaType

    init(uniqueID: String, localizedName: String, mediaType: MediaType) {
        self.uniqueID = uniqueID
        self.localizedName = localizedName
        self.mediaType = mediaType
    }

    /// Whether the device captures `mediaType`.
    public func hasMediaType(_ mediaType: MediaType) -> Bool { self.mediaType == mediaType }

    /// The devices that capture `mediaType`, in the kernel's order.
    public static func devices(for mediaType: MediaType) -> [AVCaptureDevice] {
        switch mediaType {
        case .video: cameras(in: "/sys/class/video4linux")
        case .audio: microphones(in: (try? String(contentsOfFile: "/proc/asound/pcm", encoding: .utf8)) ?? "")
        }
    }

    /// The first device that captures `mediaType`, if there is one.
    public static func `default`(for mediaType: MediaType) -> AVCaptureDevice? {
        devices(for: mediaType).first
    }

    /// `.authorized` if this user may open every device of `mediaType` for reading and
    /// writing (as membership of the `video` or `audio` group grants), `.denied` if some
    /// exist but can't be opened, and `.restricted` if there are none. Linux asks no one,
    /// so it is never `.notDetermined`.
    public static func authorizationStatus(for mediaType: MediaType) -> AuthorizationStatus {
        let found = devices(for: mediaType)
        guard !found.isEmpty else { return .restricted }
        return found.allSatisfy { access($0.uniqueID, R_OK | W_OK) == 0 } ? .authorized : .denied
    }

    /// Answers at once with whether `mediaType` is authorized: on Linux the device nodes'
    /// permissions decide, and there is no one to ask.
    public static func requestAccess(for mediaType: MediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        handler(authorizationStatus(for: mediaType) == .authorized)
    }

    /// The `videoN` entries of `classFolder`, by number, with the names their drivers give.
    static func cameras(in classFolder: String) -> [AVCaptureDevice] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: classFolder)) ?? []).filter { $0.hasPrefix("video") }
        return names.sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }.map { name in
            let label = (try? String(contentsOfFile: "\(classFolder)/\(name)/name", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return AVCaptureDevice(uniqueID: "/dev/\(name)", localizedName: label ?? name, mediaType: .video)
        }
    }

    /// Each capture line of `table`, /proc/asound/pcm: `CC-DD: id : name : playback 1 : capture 1`.
    static func microphones(in table: String) -> [AVCaptureDevice] {
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3, fields.dropFirst(3).contains(where: { $0.hasPrefix("capture") }) else { return nil }
            let numbers = fields[0].split(separator: "-").compactMap { Int($0) }
            guard numbers.count == 2 else { return nil }
            return AVCaptureDevice(uniqueID: "/dev/snd/pcmC\(numbers[0])D\(numbers[1])c", localizedName: fields[2], mediaType: .audio)
        }
    }
}
