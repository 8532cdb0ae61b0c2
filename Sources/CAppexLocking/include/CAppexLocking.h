// Tells ThreadSanitizer that a lock passed from one thread to another, for Locked (AppexLocking),
// and tells C whether it is built with ThreadSanitizer.
#ifndef C_APPEX_LOCKING_H
#define C_APPEX_LOCKING_H

/// Set to 1 in C built with ThreadSanitizer (`swift build --sanitize=thread`).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define APPEX_THREAD_SANITIZER 1
#endif
#endif

/// The thread now holds the lock at `lock`: what the thread that released it last did before
/// that happens before what this one does next. Does nothing unless built with ThreadSanitizer.
void appex_lock_acquired(const void *lock);
/// The thread is about to release the lock at `lock`. Does nothing unless built with
/// ThreadSanitizer.
void appex_lock_releasing(const void *lock);

#endif
