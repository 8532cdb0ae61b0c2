public import AppexCore
public import Foundation

extension NSItemProvider {
    /// The kinds of value an item representation holds, as the provider coerces them and
    /// as they cross a process boundary.
    public enum ItemValue: Sendable, Hashable {
        /// Text. As data it is UTF-8.
        case string(String)
        /// A web or file URL. As data it is the URL's absolute string in UTF-8, except that a
        /// file URL registered under a type that is not a URL type stands for the file's contents.
        case url(URL)
        /// Bytes.
        case data(Data)
        /// A number, date, array or dictionary. As data it is an XML property list.
        case propertyList(PropertyListValue)

        /// The Swift value this stands for: `String`, `URL`, `Data`, `Int`, `Double`, `Bool`,
        /// `Date`, or `PropertyListValue` for an array or a dictionary.
        public var value: any NSItemProviderValue {
            switch self {
            case .string(let value): value
            case .url(let value): value
            case .data(let value): value
            case .propertyList(let list):
                switch list {
                case .array, .dictionary: list
                // A scalar's Foundation object is the Swift scalar: Int, Double, Bool, Date, …
                default: list.foundationObject as? any NSItemProviderValue ?? list
                }
            }
        }

        /// The type an item of this kind is registered under when its caller names none.
        var defaultTypeIdentifier: String {
            switch self {
            case .string: UTType.utf8PlainText.identifier
            case .url(let url): url.isFileURL ? UTType.fileURL.identifier : UTType.url.identifier
            case .data: UTType.data.identifier
            case .propertyList: UTType.propertyList.identifier
            }
        }
    }
}
