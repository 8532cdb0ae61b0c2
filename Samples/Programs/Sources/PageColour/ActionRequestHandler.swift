// The Page Colour extension: the Action of Apple's "Accessing a Webpage". Its preprocessing
// file hands it the page's base URI, and it answers with the colour for the page's finalize.
import AppexKit
import Foundation

/// Reads the web page's preprocessing results and completes with a property list whose
/// `NSExtensionJavaScriptFinalizeArgumentKey` holds `bgColor`: red, or the colour a page's
/// `#colour=` fragment names. An item without preprocessing results ends the request with
/// an error that says so.
class ActionRequestHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let providers = (context.inputItems as! [NSExtensionItem]).flatMap { $0.attachments ?? [] }
        guard let provider = providers.first(where: { $0.hasItemConformingToTypeIdentifier(UTType.propertyList.identifier) }) else {
            context.cancelRequest(withError: CocoaError(.featureUnsupported, userInfo: [
                NSLocalizedDescriptionKey: "Page Colour needs a web page: run it from the browser, where its script reads the page",
            ]))
            return
        }
        provider.loadItem(forTypeIdentifier: UTType.propertyList.identifier, options: nil) { item, error in
            guard let dictionary = item as? NSDictionary,
                  let results = dictionary[NSExtensionJavaScriptPreprocessingResultsKey] as? NSDictionary
            else {
                context.cancelRequest(withError: error ?? CocoaError(.propertyListReadCorrupt))
                return
            }
            let finalize = NSExtensionItem()
            let argument: NSDictionary = [NSExtensionJavaScriptFinalizeArgumentKey: ["bgColor": Self.colour(for: results["baseURI"] as? String)]]
            finalize.attachments = [NSItemProvider(item: argument, typeIdentifier: UTType.propertyList.identifier)]
            context.completeRequest(returningItems: [finalize], completionHandler: nil)
        }
    }

    /// Red, unless the page's address ends in `#colour=NAME` with a name of letters only.
    static func colour(for baseURI: String?) -> String {
        guard let fragment = baseURI.flatMap(URLComponents.init(string:))?.fragment, fragment.hasPrefix("colour=") else { return "red" }
        let name = fragment.dropFirst("colour=".count)
        return !name.isEmpty && name.allSatisfy(\.isLetter) ? String(name) : "red"
    }
}
