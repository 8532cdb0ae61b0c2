// An extension imports AppexKit alone, as it would import Foundation on Apple's platforms,
// and gets the item types, the uniform types and the app group API with it.
@_exported public import AppexCore
@_exported public import AppexGroups
@_exported public import AppexItems
