// An extension imports AppexKit alone, as it would import Foundation on Apple's platforms,
// and gets the item types and uniform types with it.
@_exported public import AppexCore
@_exported public import AppexItems
