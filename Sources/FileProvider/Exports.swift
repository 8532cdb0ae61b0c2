// FileProvider, as a File Provider extension written for Apple's platforms imports it:
// NSFileProviderReplicatedExtension and its types, from AppexFileProvider, and Foundation,
// which Apple's framework brings with it.
@_exported public import AppexFileProvider
@_exported public import Foundation
