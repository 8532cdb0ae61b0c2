// Starting a program without exec: the launcher's child loads the executable into itself
// and calls its main (docs/zygote.md).
//
// The child was forked from the launcher, which has already loaded and started the shared
// Swift runtime and Foundation; the executable links the same libraries, so dlopen finds
// them loaded, by name, and only maps and relocates the executable itself. glibc's dlopen
// refuses an object flagged DF_1_PIE and nothing else of an executable, so the launcher
// loads a copy with that flag clear. A program's own main isn't exported, so the launcher
// finds its address in the file's .symtab (LoadableExecutable) and passes it here.
//
// What exec would have done and loading doesn't, this does first: the init split for a pid
// namespace (init.c runs from .preinit_array, which dlopen never runs), a thread's cached
// ids (thread_ids.c), the process's name (the kernel's, glibc's and Foundation's), and the
// runtime's arguments, which libswiftCore took from the launcher's own start.
//
// Foundation takes the program's path once, from /proc/self/exe, which names the launcher
// here, and finds Bundle.main from it (CoreFoundation's _CFProcessPath). Its record of the
// path and name are LOCAL symbols of libFoundation.so, found in its .symtab before any fork
// (appex_program_path_find), and set in the child to the program's before anything asks.

#define _GNU_SOURCE
#include "CAppexSystem.h"
#include "symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

typedef int (*appex_main)(int, char **, char **);
typedef void (*appex_override_arguments)(char **, int);

static void appex_run_loaded_fail(const appex_loaded_program *program, const char *what, const char *detail) {
    dprintf(2, "appex-launcher: %s: %s%s%s\n", program->path, what, detail ? ": " : "", detail ? detail : "");
    _exit(127);
}

/// Where libFoundation keeps the program's path and name, or NULL where it isn't loaded.
static const char **foundation_path = NULL;
static const char **foundation_name = NULL;

typedef struct {
    uintptr_t base;
    bool found_path;
    bool found_name;
} foundation_search;

static void record_if_program_path(const char *name, const Elf64_Sym *symbol, void *context) {
    foundation_search *search = context;
    if (ELF64_ST_TYPE(symbol->st_info) != STT_OBJECT || symbol->st_size != sizeof(char *)) return;
    if (strcmp(name, "__CFProcessPath") == 0) {
        foundation_path = (const char **)(search->base + symbol->st_value);
        search->found_path = true;
    } else if (strcmp(name, "__CFprogname") == 0) {
        foundation_name = (const char **)(search->base + symbol->st_value);
        search->found_name = true;
    }
}

static int find_in_foundation(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    if (!slash || strcmp(slash + 1, "libFoundation.so") != 0) return 0;
    const char **unreadable = data;
    *unreadable = info->dlpi_name;
    appex_elf_file elf;
    if (!appex_elf_map(info->dlpi_name, &elf)) return 1;
    foundation_search search = { info->dlpi_addr, false, false };
    appex_elf_each_symbol(&elf, record_if_program_path, &search);
    appex_elf_unmap(&elf);
    if (search.found_path && search.found_name) *unreadable = NULL;
    return 1;
}

int appex_program_path_find(const char **unreadable) {
    foundation_path = NULL;
    foundation_name = NULL;
    *unreadable = NULL;
    dl_iterate_phdr(find_in_foundation, unreadable);
    if (*unreadable == NULL) return 0;
    foundation_path = NULL;
    foundation_name = NULL;
    errno = ENOEXEC;
    return -1;
}

void appex_run_loaded(void *context) {
    extern char **environ;
    const appex_loaded_program *program = context;
    appex_init_become_if_asked();
    if (appex_thread_ids_forget() < 0) appex_run_loaded_fail(program, "the launcher's thread ids can't be forgotten", NULL);

    const char *slash = strrchr(program->path, '/');
    const char *name = slash ? slash + 1 : program->path;
    prctl(PR_SET_NAME, name, 0, 0, 0);
    program_invocation_name = program->argv[0];
    program_invocation_short_name = (char *)name;
    if (foundation_path) {
        *foundation_path = program->path;
        *foundation_name = name;
    }
    // CommandLine.arguments reads these; the runtime took the launcher's at its start.
    appex_override_arguments override = (appex_override_arguments)dlsym(RTLD_DEFAULT, "_swift_stdlib_overrideUnsafeArgvArgc");
    if (override == NULL) appex_run_loaded_fail(program, "the Swift runtime can't be given its arguments", dlerror());
    override(program->argv, program->argc);
    if (program->named) program->named(program);

    void *handle = dlopen(program->path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) appex_run_loaded_fail(program, "it can't be loaded", dlerror());
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) < 0 || map == NULL) appex_run_loaded_fail(program, "where it was loaded is unknown", dlerror());
    appex_main entry = (appex_main)(map->l_addr + program->mainAddress);
    exit(entry(program->argc, program->argv, environ));
}

static int appex_find_swift_runtime(struct dl_phdr_info *info, size_t size, void *found) {
    (void)size;
    const char *name = info->dlpi_name;
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (slash && strcmp(slash + 1, "libswiftCore.so") == 0) {
        *(const char **)found = name;
        return 1;
    }
    return 0;
}

const char *appex_loaded_swift_runtime(void) {
    const char *found = NULL;
    dl_iterate_phdr(appex_find_swift_runtime, &found);
    return found;
}

int appex_child_exits_fd(void) {
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &children, NULL) < 0) return -1;
    return signalfd(-1, &children, SFD_CLOEXEC | SFD_NONBLOCK);
}

const char *appex_load_global(const char *name, const char **error) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    struct link_map *map = NULL;
    if (handle == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) < 0 || map == NULL) {
        *error = dlerror();
        return NULL;
    }
    return map->l_name;
}
