/*
 * decode.h - the pure text forms behind TY_DECODED builtins.
 *
 * Some builtins keep a plain integer in BPF (cheap to key a map by) and
 * name it only when it is printed: ioctl request fields (ioctl.c), the
 * file behind a process's descriptor (ioctl.c), syscall names
 * (syscalls.c) and disk names (block.c).  These helpers are what the
 * decoders print; they have no BPF in them, so they are unit-tested
 * without root (tests/unit/test_stdlib_ioctl.c, test_stdlib_names.c).
 * Results are static strings or live in the arena.
 */
#ifndef SONDE_STDLIB_DECODE_H
#define SONDE_STDLIB_DECODE_H

#include <stdbool.h>
#include <stdint.h>

struct arena;

/* ioctl request fields, as <asm-generic/ioctl.h> packs them */
#define IOC_DIR(cmd) (((cmd) >> 30) & 0x3)
#define IOC_SIZE(cmd) (((cmd) >> 16) & 0x3fff)
#define IOC_TYPE(cmd) (((cmd) >> 8) & 0xff)
#define IOC_NR(cmd) ((cmd) & 0xff)

/* the direction as userspace sees it: "NONE", "W", "R", "RW" */
const char *ioc_dir_text(uint64_t dir);
/* the driver's magic byte: 'T' when printable ASCII, else 0x1b */
const char *ioc_type_text(struct arena *a, uint64_t type);
/* is this path a device file of the NVIDIA GPU driver (/dev/nvidiactl,
 * /dev/nvidiaN, /dev/nvidia-uvm, /dev/nvidia-uvm-tools)? */
bool ioc_is_gpu_device(const char *path);
/* An NVIDIA driver request by name, from the numbers in NVIDIA's
 * open-gpu-kernel-modules headers (nv_escape.h, nv-ioctl-numbers.h,
 * uvm_ioctl.h): "NV_ESC_RM_ALLOC" on /dev/nvidiactl or /dev/nvidiaN,
 * "UVM_MIGRATE" on /dev/nvidia-uvm; an NV_ESC_RM_CONTROL call with its
 * control command (rmcmd, the cmd field of its argument struct; 0 when
 * not read) as "NV_ESC_RM_CONTROL NV2080_CTRL 0x20800110".  NULL when
 * path is not a GPU driver file. */
const char *ioc_nvidia_text(struct arena *a, const char *path, uint64_t cmd, uint32_t rmcmd);
/* fdpath(pid, fd) is stored as pid << 32 | fd */
#define FDPATH_PACK(pid, fd) (((uint64_t)(pid) << 32) | ((uint64_t)(fd) & 0xffffffffu))
/* the file behind fd `fd` of process `pid`, read from PROC_ROOT/PID/fd/FD
 * (proc_root NULL: /proc); GPU driver files get " (GPU driver)" appended;
 * NULL when the link cannot be read (closed, or the process exited) */
const char *fd_path_text(struct arena *a, const char *proc_root, uint32_t pid, uint32_t fd);

/* a syscall number of this architecture to its name ("read"), or
 * "syscall_N" for a number the build's kernel headers do not know */
const char *syscall_text(struct arena *a, uint64_t nr);
/* its number, -1 if unknown (for tests and tables) */
int64_t syscall_number(const char *name);

/* a kernel dev_t as block tracepoints carry it (major << 20 | minor) to
 * the disk's name from SYS_ROOT/dev/block/MAJ:MIN/uevent (sys_root NULL:
 * /sys), or "MAJ:MIN" when it has none */
const char *disk_text(struct arena *a, const char *sys_root, uint64_t dev);

#endif
