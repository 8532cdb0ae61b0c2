// Social, as a Share extension written for Apple's platforms imports it:
// SLComposeServiceViewController and SLComposeSheetConfigurationItem, from AppexShare.
@_exported public import AppexShare
