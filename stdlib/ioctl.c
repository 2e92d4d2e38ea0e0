/*
 * ioctl.c - ioctl request decoding, and the file behind a descriptor.
 *
 * An ioctl request packs four fields (<asm-generic/ioctl.h>, _IOC(dir,
 * type, nr, size)): dir = cmd >> 30 (0 none, 1 write, 2 read, 3 both, as
 * userspace sees the copy), size = (cmd >> 16) & 0x3fff (bytes of the
 * argument struct), type = (cmd >> 8) & 0xff (the driver's magic: 'T' for
 * terminals, 'F' for NVIDIA's GPU driver) and nr = cmd & 0xff (the command
 * within that driver).  ioc_dir/ioc_type/ioc_nr/ioc_size compute the
 * fields in BPF with a shift and a mask, so a map keyed by them stays
 * integers; ioc_dir and ioc_type print as "RW" and 'F' through decoders.
 *
 * fdpath(pid, fd) names the file behind a descriptor: "/dev/nvidiactl".
 * BPF cannot read that here (sonde has no kernel struct access, and
 * bpf_d_path is not allowed in tracepoints), so BPF stores pid << 32 | fd
 * and userspace reads the /proc/PID/fd/FD link when the value is printed.
 * That sees descriptors opened before tracing began (a GPU service opens
 * its device files once, at startup), at the price of a race: a
 * descriptor closed before its first print shows as "fd N of pid P:
 * closed", and one closed and reused shows the newer file.  NVIDIA driver files are marked
 * " (GPU driver)": their ioctls are where the host hands work to the GPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/arena.h"
#include "host/proc.h"
#include "stdlib/decode.h"
#include "stdlib/stdlib_int.h"

/* ---- pure text forms (decode.h) -------------------------------------------- */

const char *ioc_dir_text(uint64_t dir)
{
	static const char *const names[] = {"NONE", "W", "R", "RW"};
	return names[dir & 3];
}

const char *ioc_type_text(struct arena *a, uint64_t type)
{
	type &= 0xff;
	if (type > ' ' && type < 0x7f && type != '\'' && type != '\\')
		return arena_printf(a, "'%c'", (int)type);
	return arena_printf(a, "0x%02" PRIx64, type);
}

bool ioc_is_gpu_device(const char *path)
{
	static const char *const fixed[] = {"/dev/nvidiactl", "/dev/nvidia-uvm",
					    "/dev/nvidia-uvm-tools"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(path, fixed[i]))
			return true;
	/* /dev/nvidia0, /dev/nvidia1 ...: one per GPU */
	const char *p = path + strlen("/dev/nvidia");
	if (strncmp(path, "/dev/nvidia", strlen("/dev/nvidia")) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

const char *fd_path_text(struct arena *a, const char *proc_root, uint32_t pid, uint32_t fd)
{
	char target[4096];
	if (host_proc_fd(proc_root, (int)pid, (int)fd, target, sizeof(target)))
		return NULL;
	if (ioc_is_gpu_device(target))
		return arena_printf(a, "%s (GPU driver)", target);
	return arena_strdup(a, target);
}

/* nv_escape.h (0x27..0x5e) and nv-ioctl-numbers.h (200 and up): the
 * command number of a type 'F' request on nvidiactl or a GPU's file */
struct nv_name {
	uint32_t nr;
	const char *name;
};
static const struct nv_name nv_escapes[] = {
	{0x27, "NV_ESC_RM_ALLOC_MEMORY"}, {0x28, "NV_ESC_RM_ALLOC_OBJECT"},
	{0x29, "NV_ESC_RM_FREE"}, {0x2a, "NV_ESC_RM_CONTROL"}, {0x2b, "NV_ESC_RM_ALLOC"},
	{0x32, "NV_ESC_RM_CONFIG_GET"}, {0x33, "NV_ESC_RM_CONFIG_SET"},
	{0x34, "NV_ESC_RM_DUP_OBJECT"}, {0x35, "NV_ESC_RM_SHARE"},
	{0x37, "NV_ESC_RM_CONFIG_GET_EX"}, {0x38, "NV_ESC_RM_CONFIG_SET_EX"},
	{0x39, "NV_ESC_RM_I2C_ACCESS"}, {0x41, "NV_ESC_RM_IDLE_CHANNELS"},
	{0x4a, "NV_ESC_RM_VID_HEAP_CONTROL"}, {0x4d, "NV_ESC_RM_ACCESS_REGISTRY"},
	{0x4e, "NV_ESC_RM_MAP_MEMORY"}, {0x4f, "NV_ESC_RM_UNMAP_MEMORY"},
	{0x52, "NV_ESC_RM_GET_EVENT_DATA"}, {0x54, "NV_ESC_RM_ALLOC_CONTEXT_DMA2"},
	{0x56, "NV_ESC_RM_ADD_VBLANK_CALLBACK"}, {0x57, "NV_ESC_RM_MAP_MEMORY_DMA"},
	{0x58, "NV_ESC_RM_UNMAP_MEMORY_DMA"}, {0x59, "NV_ESC_RM_BIND_CONTEXT_DMA"},
	{0x5c, "NV_ESC_RM_EXPORT_OBJECT_TO_FD"}, {0x5d, "NV_ESC_RM_IMPORT_OBJECT_FROM_FD"},
	{0x5e, "NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO"},
	{200, "NV_ESC_CARD_INFO"}, {201, "NV_ESC_REGISTER_FD"}, {206, "NV_ESC_ALLOC_OS_EVENT"},
	{207, "NV_ESC_FREE_OS_EVENT"}, {209, "NV_ESC_STATUS_CODE"},
	{210, "NV_ESC_CHECK_VERSION_STR"}, {211, "NV_ESC_IOCTL_XFER_CMD"},
	{212, "NV_ESC_ATTACH_GPUS_TO_FD"}, {213, "NV_ESC_QUERY_DEVICE_INTR"},
	{214, "NV_ESC_SYS_PARAMS"}, {217, "NV_ESC_EXPORT_TO_DMABUF_FD"},
	{218, "NV_ESC_WAIT_OPEN_COMPLETE"},
};
/* uvm_ioctl.h: nvidia-uvm's requests are plain numbers, not _IOC() */
static const struct nv_name uvm_ioctls[] = {
	{1, "UVM_RESERVE_VA"}, {2, "UVM_RELEASE_VA"}, {3, "UVM_REGION_COMMIT"},
	{4, "UVM_REGION_DECOMMIT"}, {5, "UVM_REGION_SET_STREAM"}, {6, "UVM_SET_STREAM_RUNNING"},
	{7, "UVM_SET_STREAM_STOPPED"}, {9, "UVM_RUN_TEST"}, {10, "UVM_ADD_SESSION"},
	{11, "UVM_REMOVE_SESSION"}, {12, "UVM_ENABLE_COUNTERS"}, {13, "UVM_MAP_COUNTER"},
	{14, "UVM_CREATE_EVENT_QUEUE"}, {15, "UVM_REMOVE_EVENT_QUEUE"},
	{16, "UVM_MAP_EVENT_QUEUE"}, {17, "UVM_EVENT_CTRL"}, {18, "UVM_REGISTER_MPS_SERVER"},
	{19, "UVM_REGISTER_MPS_CLIENT"}, {20, "UVM_GET_GPU_UUID_TABLE"},
	{23, "UVM_CREATE_RANGE_GROUP"}, {24, "UVM_DESTROY_RANGE_GROUP"},
	{25, "UVM_REGISTER_GPU_VASPACE"}, {26, "UVM_UNREGISTER_GPU_VASPACE"},
	{27, "UVM_REGISTER_CHANNEL"}, {28, "UVM_UNREGISTER_CHANNEL"},
	{29, "UVM_ENABLE_PEER_ACCESS"}, {30, "UVM_DISABLE_PEER_ACCESS"},
	{31, "UVM_SET_RANGE_GROUP"}, {33, "UVM_MAP_EXTERNAL_ALLOCATION"}, {34, "UVM_FREE"},
	{35, "UVM_MEM_MAP"}, {36, "UVM_DEBUG_ACCESS_MEMORY"}, {37, "UVM_REGISTER_GPU"},
	{38, "UVM_UNREGISTER_GPU"}, {39, "UVM_PAGEABLE_MEM_ACCESS"},
	{40, "UVM_PREVENT_MIGRATION_RANGE_GROUPS"}, {41, "UVM_ALLOW_MIGRATION_RANGE_GROUPS"},
	{42, "UVM_SET_PREFERRED_LOCATION"}, {43, "UVM_UNSET_PREFERRED_LOCATION"},
	{44, "UVM_ENABLE_READ_DUPLICATION"}, {45, "UVM_DISABLE_READ_DUPLICATION"},
	{46, "UVM_SET_ACCESSED_BY"}, {47, "UVM_UNSET_ACCESSED_BY"}, {51, "UVM_MIGRATE"},
	{53, "UVM_MIGRATE_RANGE_GROUP"}, {54, "UVM_ENABLE_SYSTEM_WIDE_ATOMICS"},
	{55, "UVM_DISABLE_SYSTEM_WIDE_ATOMICS"}, {56, "UVM_TOOLS_INIT_EVENT_TRACKER"},
	{57, "UVM_TOOLS_SET_NOTIFICATION_THRESHOLD"}, {58, "UVM_TOOLS_EVENT_QUEUE_ENABLE_EVENTS"},
	{59, "UVM_TOOLS_EVENT_QUEUE_DISABLE_EVENTS"}, {60, "UVM_TOOLS_ENABLE_COUNTERS"},
	{61, "UVM_TOOLS_DISABLE_COUNTERS"}, {62, "UVM_TOOLS_READ_PROCESS_MEMORY"},
	{63, "UVM_TOOLS_WRITE_PROCESS_MEMORY"}, {64, "UVM_TOOLS_GET_PROCESSOR_UUID_TABLE"},
	{0x30000001, "UVM_INITIALIZE"}, {0x30000002, "UVM_DEINITIALIZE"},
};
static const char *nv_lookup(const struct nv_name *t, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].nr == v)
			return t[i].name;
	return NULL;
}
#define NV_LOOKUP(tab, v) nv_lookup(tab, sizeof(tab) / sizeof(tab[0]), v)

const char *ioc_nvidia_text(struct arena *a, const char *path, uint64_t cmd, uint32_t rmcmd)
{
	const char *name;
	if (!ioc_is_gpu_device(path))
		return NULL;
	if (!strncmp(path, "/dev/nvidia-uvm", strlen("/dev/nvidia-uvm"))) {
		name = NV_LOOKUP(uvm_ioctls, cmd);
		return name ? name : arena_printf(a, "uvm request %" PRIu64, cmd);
	}
	if (((cmd >> 8) & 0xff) != 'F')
		return arena_printf(a, "request 0x%" PRIx64, cmd);
	name = NV_LOOKUP(nv_escapes, cmd & 0xff);
	if (!name)
		return arena_printf(a, "NV escape %" PRIu64, cmd & 0xff);
	if ((cmd & 0xff) == 0x2a && rmcmd)
		/* a control command is class << 16 | category << 8 | index:
		 * NV2080_CTRL_* for a subdevice (a GPU), NV0080_* a device,
		 * NV0000_* the client */
		return arena_printf(a, "%s NV%04X_CTRL 0x%08x", name, rmcmd >> 16, rmcmd);
	return name;
}

/* ---- decoders ----------------------------------------------------------------- */

static const char *render_dir(struct arena *a, uint64_t v)
{
	return ioc_dir_text(v);
}

static const char *render_type(struct arena *a, uint64_t v)
{
	return ioc_type_text(a, v);
}

/*
 * The last path printed for each (pid, fd), so that a recipe printing
 * every second still names the files of a process that has since exited
 * (its final print, at exit or after -c, comes too late to read /proc).
 * Direct-mapped; a collision only loses that fallback.
 */
static struct {
	uint64_t key;
	char *text;
} seen[512];

static const char *render_fdpath(struct arena *a, uint64_t v)
{
	uint32_t pid = (uint32_t)(v >> 32), fd = (uint32_t)v;
	const char *text = fd_path_text(a, NULL, pid, fd);
	size_t slot = (size_t)((v * 0x9e3779b97f4a7c15ull) >> 55) % (sizeof(seen) / sizeof(seen[0]));
	if (!text) {
		if (seen[slot].key == v && seen[slot].text)
			return arena_strdup(a, seen[slot].text);
		return arena_printf(a, "fd %u of pid %u: closed", fd, pid);
	}
	if (seen[slot].key != v || !seen[slot].text || strcmp(seen[slot].text, text)) {
		free(seen[slot].text);
		seen[slot].key = v;
		seen[slot].text = strdup(text);
	}
	return text;
}

static const struct type_decoder ioc_dir_decoder = {"ioc_dir", true, render_dir};
static const struct type_decoder ioc_type_decoder = {"ioc_type", true, render_type};
static const struct type_decoder fdpath_decoder = {"fdpath", true, render_fdpath};

/* ---- builtins ------------------------------------------------------------------ */

static void check_dir(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &ioc_dir_decoder);
}

static void check_type(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &ioc_type_decoder);
}

static void check_int(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, NULL);
}

static void check_fdpath(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &fdpath_decoder);
}

/* (cmd >> shift) & mask */
static LLVMValueRef field(struct cg_ctx *cg, struct ast_node *n, unsigned shift, uint64_t mask)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef v = cg_expr(cg, n->call.args);
	if (shift)
		v = LLVMBuildLShr(b, v, cg_const(cg, shift), "");
	return LLVMBuildAnd(b, v, cg_const(cg, mask), "");
}

static LLVMValueRef lower_dir(struct cg_ctx *cg, struct ast_node *n) { return field(cg, n, 30, 0x3); }
static LLVMValueRef lower_size(struct cg_ctx *cg, struct ast_node *n) { return field(cg, n, 16, 0x3fff); }
static LLVMValueRef lower_type(struct cg_ctx *cg, struct ast_node *n) { return field(cg, n, 8, 0xff); }
static LLVMValueRef lower_nr(struct cg_ctx *cg, struct ast_node *n) { return field(cg, n, 0, 0xff); }

/* pid << 32 | (fd & 0xffffffff) */
static LLVMValueRef lower_fdpath(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef pid = cg_expr(cg, n->call.args);
	LLVMValueRef fd = cg_expr(cg, n->call.args->next);
	LLVMValueRef hi = LLVMBuildShl(b, pid, cg_const(cg, 32), "");
	return LLVMBuildOr(b, hi, LLVMBuildAnd(b, fd, cg_const(cg, 0xffffffff), ""), "fdpath");
}

#define IOC(nm, chk, low, doc) \
	{.name = nm, .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = chk, .lower = low, \
	 .summary = doc}

const struct builtin stdlib_ioctl[] = {
	IOC("ioc_dir", check_dir, lower_dir,
	    "direction of an ioctl request: NONE, W, R or RW (cmd >> 30)"),
	IOC("ioc_type", check_type, lower_type,
	    "driver magic of an ioctl request, printed as 'F' ((cmd >> 8) & 0xff)"),
	IOC("ioc_nr", check_int, lower_nr, "command number of an ioctl request (cmd & 0xff)"),
	IOC("ioc_size", check_int, lower_size,
	    "argument size of an ioctl request ((cmd >> 16) & 0x3fff)"),
	{.name = "fdpath", .kind = BI_FUNC, .min_args = 2, .max_args = 2, .check = check_fdpath,
	 .lower = lower_fdpath,
	 .summary = "file behind descriptor fd of process pid, read from /proc when printed: "
		    "fdpath(pid, fd)"},
	{0},
};
