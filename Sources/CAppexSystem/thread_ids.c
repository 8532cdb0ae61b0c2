// Thread ids a forked child inherits from its parent's caches.
//
// Swift's locks on Linux are priority-inheriting futexes: a lock's word holds its owner's
// thread id, and the kernel hands the lock on, or refuses FUTEX_UNLOCK_PI, by that id. Each
// thread looks its id up once and keeps it in a thread-local variable:
// - the runtime's own locks: `tid` in swift::threading_impl::linux::ulock_get_tid, one copy
//   in libswiftCore and one in libswift_Concurrency (or in an executable that links the
//   runtime statically);
// - Synchronization's Mutex: `tid` in the shims' _swift_stdlib_gettid, inlined into every
//   translation unit that uses a Mutex, so one copy in each such unit of every module
//   (libFoundation holds twelve);
// - libdispatch's unfair locks: the first field of its thread data, `__dispatch_tsd`.
// fork copies the calling thread with its thread-local variables, so a child's main thread
// goes on naming itself by its parent's thread id. Its uncontended locks still work, since
// user space compares the word with the same stale id, but the first lock another thread
// waits for fails: the waiter's FUTEX_LOCK_PI finds the owner named in the word to be a
// thread of another process, and the owner's FUTEX_UNLOCK_PI is refused, since the word
// doesn't name the caller. Synchronization traps ("Unknown error occurred while attempting
// to acquire a Mutex"); the runtime's locks spin.
//
// Nothing resets them: none has an atfork handler. So a process that forks a child to run
// Swift code in, rather than to exec, finds the caches once (appex_thread_ids_find), and the
// child forgets them (appex_thread_ids_forget) before anything else; each is filled again with
// the child's own id at its next use. The caches are LOCAL symbols, which only a file's
// .symtab names, so each loaded object with a thread-local segment is read from its file (the
// main program through /proc/self/exe). An object that holds Swift code or is libdispatch,
// and whose .symtab is gone (stripped), can't be vouched for: finding then fails, naming it,
// rather than leave a cache it can't see.

#define _GNU_SOURCE
#include "CAppexSystem.h"
#include "symbols.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>

/// The thread-local caches of a thread id, by symbol name; each is an int at the symbol's
/// start (for __dispatch_tsd, its first field).
static const char *const cache_names[] = {
    "_ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid",
    "_swift_stdlib_gettid.tid",
    "__dispatch_tsd",
};

/// Where a cache is: the object's module id and the offset in its thread-local block.
typedef struct {
    size_t module;
    size_t offset;
} cache_place;

enum { places_capacity = 256 };
static cache_place places[places_capacity];
static int places_count = -1;

typedef struct {
    int found;
    const char *unreadable;
    bool full;
} find_state;

static bool is_cache(const char *name) {
    for (size_t i = 0; i < sizeof cache_names / sizeof *cache_names; i++) {
        if (strcmp(name, cache_names[i]) == 0) return true;
    }
    return false;
}

/// Whether section headers name Swift's metadata (swift5_*) or the object is libdispatch:
/// an object that may hold a cache.
static bool may_hold_cache(const char *path, const appex_elf_file *elf) {
    const char *base = strrchr(path, '/');
    if (strncmp(base ? base + 1 : path, "libdispatch.so", 14) == 0) return true;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)elf->file;
    if (header->e_shstrndx >= elf->sectionCount) return false;
    const Elf64_Shdr *names = &elf->sections[header->e_shstrndx];
    if (!appex_elf_holds(elf, names->sh_offset, names->sh_size) || names->sh_size == 0
        || elf->file[names->sh_offset + names->sh_size - 1] != 0) return false;
    for (int i = 0; i < elf->sectionCount; i++) {
        if (elf->sections[i].sh_name >= names->sh_size) continue;
        const char *name = (const char *)elf->file + names->sh_offset + elf->sections[i].sh_name;
        if (strncmp(name, "swift5_", 7) == 0) return true;
    }
    return false;
}

/// The object's thread-local segment's size, 0 if it has none.
static size_t tls_size(const struct dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_TLS) return info->dlpi_phdr[i].p_memsz;
    }
    return 0;
}

/// One object's search: its module, its block's size, and the search's state.
typedef struct {
    size_t module;
    size_t block_size;
    find_state *state;
} object_search;

static void record_if_cache(const char *name, const Elf64_Sym *symbol, void *context) {
    object_search *search = context;
    if (ELF64_ST_TYPE(symbol->st_info) != STT_TLS || symbol->st_size < sizeof(int) || symbol->st_value > search->block_size - sizeof(int)) return;
    if (!is_cache(name)) return;
    if (search->state->found == places_capacity) {
        search->state->full = true;
        return;
    }
    places[search->state->found++] = (cache_place){ search->module, symbol->st_value };
}

/// Records the caches in one object's file; false if it may hold one that its file doesn't
/// let us find.
static bool find_in_file(const char *path, size_t module, size_t block_size, find_state *state) {
    appex_elf_file elf;
    if (!appex_elf_map(path, &elf)) return false;
    object_search search = { module, block_size, state };
    bool symbols = appex_elf_each_symbol(&elf, record_if_cache, &search) || !may_hold_cache(path, &elf);
    appex_elf_unmap(&elf);
    return symbols;
}

static int find_in_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    find_state *state = data;
    size_t block_size = tls_size(info);
    if (block_size < sizeof(int)) return 0;
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
    if (!find_in_file(path, info->dlpi_tls_modid, block_size, state) && state->unreadable == NULL) state->unreadable = path;
    return 0;
}

int appex_thread_ids_find(const char **unreadable) {
    find_state state = { 0, NULL, false };
    dl_iterate_phdr(find_in_object, &state);
    if (unreadable) *unreadable = state.unreadable;
    if (state.unreadable || state.full) {
        places_count = -1;
        errno = state.full ? E2BIG : ENOEXEC;
        return -1;
    }
    places_count = state.found;
    return state.found;
}

static int forget_in_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *forgotten = data;
    // A block this thread was never given holds no cache.
    if (info->dlpi_tls_data == NULL) return 0;
    for (int i = 0; i < places_count; i++) {
        if (places[i].module != info->dlpi_tls_modid) continue;
        memset((char *)info->dlpi_tls_data + places[i].offset, 0, sizeof(int));
        (*forgotten)++;
    }
    return 0;
}

int appex_thread_ids_forget(void) {
    if (places_count < 0) { errno = EINVAL; return -1; }
    int forgotten = 0;
    dl_iterate_phdr(forget_in_object, &forgotten);
    return forgotten;
}
