// MobileCoreServices, as code written for iOS imports it: what macOS calls CoreServices.
@_exported public import CoreServices
