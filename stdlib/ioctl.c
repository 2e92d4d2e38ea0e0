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
	char link[128], target[4096];
	snprintf(link, sizeof(link), "%s/%u/fd/%u", proc_root ? proc_root : "/proc", pid, fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (ioc_is_gpu_device(target))
		return arena_printf(a, "%s (GPU driver)", target);
	return arena_strdup(a, target);
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
