@testable import AppexApplication
import AppexTesting
import Foundation
import Testing

/// Cameras and microphones as the kernel lists them, from the files it shows.
struct CaptureDeviceTests {
    @Test func camerasAreTheVideo4LinuxDevicesByNumberWithTheirDriversNames() throws {
        let folder = try TemporaryDirectory()
        for (entry, name) in [("video10", "Second camera"), ("video2", "Integrated Camera"), ("vbi0", "Teletext")] {
            let device = folder.url.appendingPathComponent(entry)
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
            try Data("\(name)\n".utf8).write(to: device.appendingPathComponent("name"))
        }
        let cameras = AVCaptureDevice.cameras(in: folder.url.path)
        #expect(cameras.map(\.uniqueID) == ["/dev/video2", "/dev/video10"])
        #expect(cameras.map(\.localizedName) == ["Integrated Camera", "Second camera"])
        #expect(cameras.allSatisfy { $0.hasMediaType(.video) })
    }

    @Test func microphonesAreTheALSADevicesThatCapture() {
        let table = """
            00-00: ALC257 Analog : ALC257 Analog : playback 1 : capture 1
            00-03: HDMI 0 : HDMI 0 : playback 1
            01-00: USB Audio : USB Microphone : capture 1
            """
        let microphones = AVCaptureDevice.microphones(in: table)
        #expect(microphones.map(\.uniqueID) == ["/dev/snd/pcmC0D0c", "/dev/snd/pcmC1D0c"])
        #expect(microphones.map(\.localizedName) == ["ALC257 Analog", "USB Microphone"])
    }

    @Test func withNoDeviceAccessIsRestricted() {
        for type in [AVCaptureDevice.MediaType.video, .audio] where AVCaptureDevice.devices(for: type).isEmpty {
            #expect(AVCaptureDevice.authorizationStatus(for: type) == .restricted)
            #expect(AVCaptureDevice.default(for: type) == nil)
        }
    }
}
