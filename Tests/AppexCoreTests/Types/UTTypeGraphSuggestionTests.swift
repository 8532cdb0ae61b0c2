import AppexCore
import Testing

@Suite struct UTTypeGraphSuggestionTests {
    let graph = UTTypeGraph.system

    @Test func suggestsTheNearestDeclaredIdentifier() {
        #expect(graph.closestDeclaredIdentifier(to: "public.camera-raw-imag") == "public.camera-raw-image")
        #expect(graph.closestDeclaredIdentifier(to: "public.jpg") == "public.jpeg")
        #expect(graph.closestDeclaredIdentifier(to: "public.plaintext") == "public.plain-text")
        #expect(graph.closestDeclaredIdentifier(to: "PUBLIC.IMAGES") == "public.image")
        #expect(graph.closestDeclaredIdentifier(to: "com.adobe.pfd") == "com.adobe.pdf")
    }

    @Test func declaredIdentifiersSuggestTheirOwnSpelling() {
        #expect(graph.closestDeclaredIdentifier(to: "Public.JPEG") == "public.jpeg")
    }

    @Test func nothingCloseMeansNoSuggestion() {
        #expect(graph.closestDeclaredIdentifier(to: "org.example.completely-different") == nil)
        #expect(graph.closestDeclaredIdentifier(to: "") == nil)
        #expect(graph.closestDeclaredIdentifier(to: "public.jpg", maximumDistance: 0) == nil)
    }

    @Test func seesAppTypes() {
        let withApp = graph.adding([UTTypeDeclaration(identifier: "com.example.notes.note", conformsTo: ["public.data"])])
        #expect(withApp.closestDeclaredIdentifier(to: "com.example.note.note") == "com.example.notes.note")
    }
}
