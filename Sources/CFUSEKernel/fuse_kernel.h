// The kernel's FUSE protocol, as the kernel's own UAPI header defines it (linux-libc-dev).
// AppexFUSE speaks it on /dev/fuse directly; docs/file-provider.md says why not libfuse.
#pragma once
#include <linux/fuse.h>
#include <sys/mount.h>
