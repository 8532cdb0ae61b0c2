import AppexKit

NSExtensionMain()
