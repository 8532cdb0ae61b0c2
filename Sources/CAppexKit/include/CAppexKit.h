// What AppexKit needs from C: making an instance of the principal class named in the
// Info.plist, as Objective-C's `[[cls alloc] init]` does on Apple's systems.
#ifndef C_APPEX_KIT_H
#define C_APPEX_KIT_H

/// Makes an instance of `metadata`, the Swift metadata of a subclass of Foundation's
/// `NSObject`, with the class's `init()`, which it has or inherits; returns it retained,
/// or NULL when the class has no `init()` at all. A subclass that declares another
/// designated initializer and not `init()` traps with Swift's "Use of unimplemented
/// initializer 'init()'", as its `[[cls alloc] init]` does on Apple's systems.
void *appex_make_principal_object(const void *metadata);

#endif
