/// The key of an item's title in ``NSExtensionItem/userInfo``, as Apple names it.
public let NSExtensionItemAttributedTitleKey = "NSExtensionItemAttributedTitleKey"

/// The key of an item's content text in ``NSExtensionItem/userInfo``, as Apple names it.
public let NSExtensionItemAttributedContentTextKey = "NSExtensionItemAttributedContentTextKey"

/// Apple's key for an item's attachments.
///
/// Apple keeps attachments in `userInfo` under this key. Appex keeps them in
/// ``NSExtensionItem/attachments`` only, because providers are not property-list values;
/// the key is here so code that names it still compiles.
public let NSExtensionItemAttachmentsKey = "NSExtensionItemAttachmentsKey"

/// The key, in the property-list item a Share or Action extension gets from a web page's
/// preprocessing JavaScript (`kUTTypePropertyList`), of what the script passed to its
/// completion function.
public let NSExtensionJavaScriptPreprocessingResultsKey = "NSExtensionJavaScriptPreprocessingResultsKey"

/// The key, in the property-list item an Action extension returns to a web page, of the
/// arguments for the preprocessing JavaScript's finalize function.
public let NSExtensionJavaScriptFinalizeArgumentKey = "NSExtensionJavaScriptFinalizeArgumentKey"

/// Apple's key, in the `userInfo` of the error an extension cancels a request with, for the
/// items it had and what went wrong with each. Appex passes an error's domain, code,
/// description and recovery suggestion to the host, not its `userInfo`, so a value under
/// this key stays in the extension; the key is here so code that names it compiles.
public let NSExtensionItemsAndErrorsKey = "NSExtensionItemsAndErrorsKey"
