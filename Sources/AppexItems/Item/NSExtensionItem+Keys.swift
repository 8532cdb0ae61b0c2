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
