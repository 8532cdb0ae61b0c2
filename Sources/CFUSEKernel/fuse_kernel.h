// The kernel's FUSE protocol, as the kernel's own UAPI header defines it (linux-libc-dev).
// AppexFUSE speaks it on /dev/fuse directly; docs/file-provider.md says why not libfuse.
#pragma once
#include <linux/fuse.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>

// Passthrough (Linux 6.9, protocol 7.40), newer than the header Debian 12 ships (7.38): the
// kernel reads and writes an open file's backing file itself. The values are the kernel's.
#define APPEX_FUSE_PASSTHROUGH (1ULL << 37)
#define APPEX_FOPEN_PASSTHROUGH (1 << 7)

struct appex_fuse_backing_map {
    int32_t fd;
    uint32_t flags;
    uint64_t padding;
};

/// Registers `fd` as a backing file with the connection on `device`; returns its id, or -1
/// with errno (EPERM without CAP_SYS_ADMIN, ENOTTY on a kernel without passthrough).
static inline int appex_fuse_backing_open(int device, int fd) {
    struct appex_fuse_backing_map map = { .fd = fd, .flags = 0, .padding = 0 };
    return ioctl(device, _IOW(229, 1, struct appex_fuse_backing_map), &map);
}

/// Drops the connection's hold of backing file `id`; files opened with it keep theirs.
static inline int appex_fuse_backing_close(int device, uint32_t id) {
    return ioctl(device, _IOW(229, 2, uint32_t), &id);
}
