extension ExtensionPoint {
    /// Share (`com.apple.share-services`): posts the user's content somewhere.
    public static let share = ExtensionPoint(
        id: "com.apple.share-services", name: "Share",
        policy: .init(memoryLimit: .mebibytes(120), requiresActivationRule: true)
    )
    /// Action (`com.apple.ui-services`): transforms the user's content and returns it to the host.
    public static let action = ExtensionPoint(
        id: "com.apple.ui-services", name: "Action",
        policy: .init(memoryLimit: .mebibytes(120), requiresActivationRule: true)
    )
    /// Today widget (`com.apple.widget-extension`): a glanceable view with snapshots. A
    /// widget's request lasts while a Today view shows it, so it has no request deadline;
    /// each update must be answered within AppexToday's `WidgetSession.defaultUpdateDeadline` (10 s).
    public static let today = ExtensionPoint(
        id: "com.apple.widget-extension", name: "Today",
        policy: .init(memoryLimit: .mebibytes(32), mayOpenURLs: true)
    )
    /// Photo Editing (`com.apple.photo-editing`): edits an image with resumable adjustment data.
    public static let photoEditing = ExtensionPoint(
        id: "com.apple.photo-editing", name: "Photo Editing",
        policy: .init(memoryLimit: .mebibytes(120))
    )
    /// Document Provider with a user interface (`com.apple.fileprovider-ui`).
    public static let documentPickerUI = ExtensionPoint(
        id: "com.apple.fileprovider-ui", name: "Document Provider",
        policy: .init(memoryLimit: .mebibytes(120))
    )
    /// Document Provider's file storage (`com.apple.fileprovider-nonui`): materialises files on demand.
    public static let fileProvider = ExtensionPoint(
        id: "com.apple.fileprovider-nonui", name: "File Provider",
        policy: .init(memoryLimit: .mebibytes(60))
    )
    /// Custom Keyboard (`com.apple.keyboard-service`): a text document proxy.
    public static let keyboard = ExtensionPoint(
        id: "com.apple.keyboard-service", name: "Custom Keyboard",
        policy: .init(memoryLimit: .mebibytes(48))
    )
    /// Notification Service (`com.apple.usernotifications.service`): modifies a payload in about 30 s.
    public static let notificationService = ExtensionPoint(
        id: "com.apple.usernotifications.service", name: "Notification Service",
        policy: .init(memoryLimit: .mebibytes(24), requestDeadline: .seconds(30))
    )

    /// The points Appex hosts on Linux.
    public static let hosted: [ExtensionPoint] = [
        share, action, today, photoEditing, documentPickerUI, fileProvider, keyboard, notificationService,
    ]

    /// Points Apple defines that Appex recognizes but does not host yet, with their names.
    static let recognizedNames: [(id: String, name: String)] = [
        ("com.apple.services", "Services (macOS Action)"),
        ("com.apple.fileprovider-actionsui", "File Provider Actions"),
        ("com.apple.broadcast-services", "Broadcast UI"),
        ("com.apple.broadcast-services-upload", "Broadcast Upload"),
        ("com.apple.broadcast-services-setupui", "Broadcast Setup UI"),
        ("com.apple.Safari.content-blocker", "Safari Content Blocker"),
        ("com.apple.Safari.extension", "Safari App Extension"),
        ("com.apple.Safari.web-extension", "Safari Web Extension"),
        ("com.apple.authentication-services-credential-provider-ui", "Credential Provider"),
        ("com.apple.widgetkit-extension", "WidgetKit"),
        ("com.apple.intents-service", "Intents"),
        ("com.apple.intents-ui-service", "Intents UI"),
        ("com.apple.message-payload-provider", "iMessage"),
        ("com.apple.callkit.call-directory", "Call Directory"),
        ("com.apple.spotlight.index", "Spotlight Index"),
        ("com.apple.spotlight.import", "Spotlight Import"),
        ("com.apple.dt.Xcode.extension.source-editor", "Xcode Source Editor"),
        ("com.apple.tv-top-shelf", "TV Top Shelf"),
        ("com.apple.FinderSync", "Finder Sync"),
        ("com.apple.quicklook.preview", "Quick Look Preview"),
        ("com.apple.quicklook.thumbnail", "Quick Look Thumbnail"),
        ("com.apple.networkextension.packet-tunnel", "Packet Tunnel"),
        ("com.apple.identitylookup.message-filter", "Message Filter"),
        ("com.apple.usernotifications.content-extension", "Notification Content"),
        ("com.apple.photo-project", "Photo Project"),
        ("com.apple.share-services.compose", "Share Compose"),
        ("com.apple.AudioUnit-UI", "Audio Unit"),
        ("com.apple.classkit.context-provider", "ClassKit Context"),
        ("com.apple.deviceactivity.monitor-extension", "Device Activity Monitor"),
        ("com.apple.appintents-extension", "App Intents"),
    ]

    /// Every point Appex knows: the hosted ones and the recognized ones.
    public static let catalog: ExtensionPointCatalog = {
        let recognized = recognizedNames.map {
            ExtensionPoint(id: $0.id, name: $0.name, support: .recognized, policy: .init(memoryLimit: .mebibytes(120)))
        }
        return ExtensionPointCatalog(hosted + recognized)
    }()
}
