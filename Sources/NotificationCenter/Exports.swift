// NotificationCenter (the framework of Today widgets), as a widget written for Apple's
// platforms imports it: NCWidgetProviding, NCWidgetController and NCUpdateResult, from
// AppexToday. Foundation's NotificationCenter class is still found by its name.
@_exported public import AppexToday
