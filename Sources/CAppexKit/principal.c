// Swift on Linux has no Objective-C runtime, and `NSObject.init()` is not `required` in
// swift-corelibs-foundation, so Swift can't call `init()` on an `NSObject.Type` it found by
// name. But every subclass's vtable has a slot for `NSObject`'s allocating `init()`, which
// the subclass overrides or inherits, and Foundation exports the descriptor of that method.
// The Swift runtime finds the slot from the descriptor, as a caller in another module
// would (resilient class dispatch), and the entry is called with Swift's convention: the
// class's metadata is `self`, in the context register.
#include "CAppexKit.h"
#include <stddef.h>

/// The method descriptor of `Foundation.NSObject.init()`, allocating entry (`fC`).
extern const char $s10Foundation8NSObjectCACycfCTq;
/// The nominal type descriptor of `Foundation.NSObject`.
extern const char $s10Foundation8NSObjectCMn;
/// The Swift runtime's vtable lookup, as it serves resilient dispatch across modules.
extern void *swift_lookUpClassMethod(const void *metadata, const void *method, const void *description);
/// What a vtable slot holds for a method the class removed.
extern void swift_deletedMethodError(void);

/// An allocating initializer without parameters: it takes the class metadata as `self`.
typedef void *AllocatingInitializer(const void *__attribute__((swift_context)) metadata) __attribute__((swiftcall));

void *appex_make_principal_object(const void *metadata) {
    void *entry = swift_lookUpClassMethod(metadata, &$s10Foundation8NSObjectCACycfCTq, &$s10Foundation8NSObjectCMn);
    if (entry == NULL || entry == (void *)&swift_deletedMethodError) {
        return NULL;
    }
    return ((AllocatingInitializer *)entry)(metadata);
}
