// The load test's extension, linked to the shared AppexKit as an author's is, so appexd forks
// it from its launcher: what each request does is its bundle's principal class (Handlers.swift).
import AppexKit

NSExtensionMain()
