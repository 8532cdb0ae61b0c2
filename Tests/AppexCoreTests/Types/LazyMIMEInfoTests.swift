@testable import AppexCore
import Synchronization
import Testing

/// The system graph reads shared-mime-info only when a lookup needs it, and only once.
@Suite struct LazyMIMEInfoTests {
    @Test func theDatabaseIsReadOnFirstUseAndOnce() {
        let reads = Atomic(0)
        let graph = UTTypeGraph(declarations: [UTTypeDeclaration(identifier: "public.item")]) {
            reads.add(1, ordering: .relaxed)
            return SharedMIMEInfo(aliases: "application/x-pdf application/pdf\n", subclasses: "", globs2: "")
        }
        #expect(graph.conforms("public.item", to: "public.item"))
        #expect(reads.load(ordering: .relaxed) == 0, "a conformance check reads no MIME database")
        #expect(graph.sharedMIMEInfo?.canonicalMIMEType("application/x-pdf") == "application/pdf")
        _ = graph.sharedMIMEInfo
        #expect(reads.load(ordering: .relaxed) == 1)
    }
}
