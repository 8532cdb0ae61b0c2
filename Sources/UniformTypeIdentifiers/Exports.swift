// UniformTypeIdentifiers, as code written for Apple's platforms imports it: UTType, its
// constants (`UTType.image`), and UTTagClass, from AppexCore.
@_exported public import struct AppexCore.UTType
@_exported public import struct AppexCore.UTTagClass
