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

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

static bool in_file(const unsigned char *file, size_t size, uint64_t offset, uint64_t length) {
    return offset <= size && length <= size - offset;
}

/// Whether section headers name Swift's metadata (swift5_*) or the object is libdispatch:
/// an object that may hold a cache.
static bool may_hold_cache(const char *path, const unsigned char *file, size_t size, const Elf64_Shdr *sections, int count) {
    const char *base = strrchr(path, '/');
    if (strncmp(base ? base + 1 : path, "libdispatch.so", 14) == 0) return true;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    if (header->e_shstrndx >= count) return false;
    const Elf64_Shdr *names = &sections[header->e_shstrndx];
    if (!in_file(file, size, names->sh_offset, names->sh_size)) return false;
    for (int i = 0; i < count; i++) {
        if (sections[i].sh_name >= names->sh_size) continue;
        const char *name = (const char *)file + names->sh_offset + sections[i].sh_name;
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

/// Records the caches in one object's file; false if it may hold one that its file doesn't
/// let us find.
static bool find_in_file(const char *path, size_t module, size_t block_size, find_state *state) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat status;
    if (fstat(fd, &status) != 0 || (size_t)status.st_size < sizeof(Elf64_Ehdr)) { close(fd); return false; }
    size_t size = (size_t)status.st_size;
    const unsigned char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) return false;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    bool symbols = false;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_ident[EI_CLASS] == ELFCLASS64
        && header->e_shentsize == sizeof(Elf64_Shdr) && in_file(file, size, header->e_shoff, (uint64_t)header->e_shnum * sizeof(Elf64_Shdr))) {
        const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + header->e_shoff);
        for (int i = 0; i < header->e_shnum; i++) {
            const Elf64_Shdr *table = &sections[i];
            if (table->sh_type != SHT_SYMTAB || table->sh_link >= header->e_shnum) continue;
            const Elf64_Shdr *strings = &sections[table->sh_link];
            if (!in_file(file, size, table->sh_offset, table->sh_size) || !in_file(file, size, strings->sh_offset, strings->sh_size)) continue;
            symbols = true;
            const Elf64_Sym *entries = (const Elf64_Sym *)(file + table->sh_offset);
            for (size_t j = 0; j < table->sh_size / sizeof(Elf64_Sym); j++) {
                const Elf64_Sym *symbol = &entries[j];
                if (ELF64_ST_TYPE(symbol->st_info) != STT_TLS || symbol->st_size < sizeof(int) || symbol->st_name >= strings->sh_size
                    || symbol->st_value > block_size - sizeof(int)) continue;
                if (!is_cache((const char *)file + strings->sh_offset + symbol->st_name)) continue;
                if (state->found == places_capacity) { state->full = true; continue; }
                places[state->found++] = (cache_place){ module, symbol->st_value };
            }
        }
        if (!symbols) symbols = !may_hold_cache(path, file, size, sections, header->e_shnum);
    }
    munmap((void *)file, size);
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
