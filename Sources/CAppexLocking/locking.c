// Swift's Mutex waits, when it is contended, on a priority-inheritance futex inside the
// uninstrumented standard library, where the kernel hands the lock to the waiting thread.
// ThreadSanitizer never sees that hand-over, so it reports what the two threads did inside
// the lock as a race. These calls tell it; in any other build they do nothing.
#include "CAppexLocking.h"

#if APPEX_THREAD_SANITIZER
// ThreadSanitizer's runtime (compiler-rt's sanitizer/tsan_interface.h).
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

void appex_lock_acquired(const void *lock) { __tsan_acquire((void *)lock); }
void appex_lock_releasing(const void *lock) { __tsan_release((void *)lock); }
#else
void appex_lock_acquired(const void *lock) { (void)lock; }
void appex_lock_releasing(const void *lock) { (void)lock; }
#endif
