public import AppexCore
public import AppexItems
import Foundation

extension ActivationItems {
    /// `items` as activation rules see them: titles and content text as plain text, user
    /// info, and each attachment's registered types (those offered to other processes) and
    /// suggested name. Nothing is loaded.
    public init(describing items: [NSExtensionItem]) {
        self.init(items.map { item in
            var userInfo = item.propertyListUserInfo
            userInfo?[NSExtensionItemAttributedTitleKey] = nil
            userInfo?[NSExtensionItemAttributedContentTextKey] = nil
            return Item(
                attributedTitle: item.attributedTitle?.string,
                attributedContentText: item.attributedContentText?.string,
                userInfo: userInfo?.isEmpty == false ? userInfo : nil,
                attachments: (item.attachments ?? []).map { provider in
                    Attachment(registeredTypeIdentifiers: provider.representations(crossingProcess: true).map(\.typeIdentifier),
                               suggestedName: provider.suggestedName)
                })
        })
    }
}
