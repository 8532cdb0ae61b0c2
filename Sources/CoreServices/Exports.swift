// CoreServices, as code written for macOS imports it: the constants and functions of
// uniform types (UTCoreTypes.h, UTType.h), and UTType itself.
@_exported public import UniformTypeIdentifiers
