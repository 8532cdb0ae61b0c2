// Reading a loaded object's symbol table (.symtab) from its file, for what only LOCAL
// symbols name: the thread-id caches (thread_ids.c) and Foundation's record of the program's
// path (loaded.c). Not part of the module's interface.
#ifndef C_APPEX_SYMBOLS_H
#define C_APPEX_SYMBOLS_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>

/// An ELF file mapped read-only, its section headers checked to lie inside it.
typedef struct {
    const unsigned char *file;
    size_t size;
    const Elf64_Shdr *sections;
    int sectionCount;
} appex_elf_file;

/// Maps the 64-bit ELF file at `path`; false if it can't be opened, mapped, or isn't one.
bool appex_elf_map(const char *path, appex_elf_file *elf);

void appex_elf_unmap(appex_elf_file *elf);

/// Whether `length` bytes at `offset` lie inside the file.
bool appex_elf_holds(const appex_elf_file *elf, uint64_t offset, uint64_t length);

/// Calls `visit` with each symbol of each symbol table (.symtab) whose name lies in the file;
/// false if the file has none: it was stripped.
bool appex_elf_each_symbol(const appex_elf_file *elf, void (*visit)(const char *name, const Elf64_Sym *symbol, void *context),
                           void *context);

#endif
