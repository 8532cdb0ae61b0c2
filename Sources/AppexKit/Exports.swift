// An extension imports AppexKit alone, as it would import Foundation on Apple's platforms,
// and gets the item types, the uniform types, the app group API and background sessions
// (`URLSession`, which Foundation carries there) with it.
@_exported public import AppexCore
@_exported public import AppexGroups
@_exported public import AppexItems
@_exported public import AppexTransfers
