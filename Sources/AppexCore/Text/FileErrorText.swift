import Foundation

/// A file operation's error in the system's words ("No such file or directory"), not
/// Foundation's on Linux ("The operation could not be completed. The file doesn't exist."):
/// the errno behind it when there is one, else what Foundation's code means.
public enum FileErrorText {
    public static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        guard nsError.domain == NSCocoaErrorDomain else { return nsError.localizedDescription }
        switch CocoaError.Code(rawValue: nsError.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
        case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
        case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
        case .fileWriteFileExists: return String(cString: strerror(EEXIST))
        case .fileReadTooLarge: return String(cString: strerror(EFBIG))
        case .fileReadCorruptFile: return "the file's contents can't be read as expected"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "the text is not in the expected encoding"
        default: return nsError.localizedDescription
        }
    }
}
