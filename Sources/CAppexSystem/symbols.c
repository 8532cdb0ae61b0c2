// Reading a symbol table from a file (symbols.h).
#define _GNU_SOURCE
#include "symbols.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool appex_elf_holds(const appex_elf_file *elf, uint64_t offset, uint64_t length) {
    return offset <= elf->size && length <= elf->size - offset;
}

bool appex_elf_map(const char *path, appex_elf_file *elf) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat status;
    if (fstat(fd, &status) != 0 || (size_t)status.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return false;
    }
    elf->size = (size_t)status.st_size;
    elf->file = mmap(NULL, elf->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (elf->file == MAP_FAILED) return false;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)elf->file;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64
        || header->e_shentsize != sizeof(Elf64_Shdr) || !appex_elf_holds(elf, header->e_shoff, (uint64_t)header->e_shnum * sizeof(Elf64_Shdr))) {
        appex_elf_unmap(elf);
        return false;
    }
    elf->sections = (const Elf64_Shdr *)(elf->file + header->e_shoff);
    elf->sectionCount = header->e_shnum;
    return true;
}

void appex_elf_unmap(appex_elf_file *elf) {
    munmap((void *)elf->file, elf->size);
    elf->file = NULL;
}

bool appex_elf_each_symbol(const appex_elf_file *elf, void (*visit)(const char *name, const Elf64_Sym *symbol, void *context),
                           void *context) {
    bool symbols = false;
    for (int i = 0; i < elf->sectionCount; i++) {
        const Elf64_Shdr *table = &elf->sections[i];
        if (table->sh_type != SHT_SYMTAB || table->sh_link >= (Elf64_Word)elf->sectionCount) continue;
        const Elf64_Shdr *strings = &elf->sections[table->sh_link];
        if (!appex_elf_holds(elf, table->sh_offset, table->sh_size) || !appex_elf_holds(elf, strings->sh_offset, strings->sh_size)) continue;
        symbols = true;
        // A table whose last string ends it holds only names that end inside it.
        if (strings->sh_size == 0 || elf->file[strings->sh_offset + strings->sh_size - 1] != 0) continue;
        const Elf64_Sym *entries = (const Elf64_Sym *)(elf->file + table->sh_offset);
        for (size_t j = 0; j < table->sh_size / sizeof(Elf64_Sym); j++) {
            if (entries[j].st_name >= strings->sh_size) continue;
            visit((const char *)elf->file + strings->sh_offset + entries[j].st_name, &entries[j], context);
        }
    }
    return symbols;
}
