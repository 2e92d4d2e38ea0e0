/*
 * btf.c - the running kernel's BTF.
 *
 * Kernel types (struct task_struct, the struct __kernel_timespec a
 * tracepoint argument points to, typedefs such as umode_t) come from
 * /sys/kernel/btf/vmlinux, read with libbpf's BTF API rather than a
 * parser of our own.  Loading it costs some milliseconds and megabytes,
 * so it happens on the first question only, and only scripts that name a
 * kernel type pay for it.  sema/btf.c turns BTF types into sonde's.
 */
#include "host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

static struct btf *kernel_btf;
static int kernel_btf_err;

/*
 * The file mapped rather than read, where the kernel allows it (recent
 * kernels): reading its 5 MB through sysfs costs about 50 ms here, a third
 * of the load; btf__new() copies the bytes, so the mapping goes at once.
 * NULL when the kernel refuses the mapping: libbpf reads the file then.
 */
static struct btf *load_mapped(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct btf *b = NULL;
	struct stat st;
	if (!fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 30)) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			b = btf__new(p, (__u32)st.st_size);
			munmap(p, (size_t)st.st_size);
		}
	}
	close(fd);
	return b;
}

const struct btf *host_kernel_btf(void)
{
	if (!kernel_btf && !kernel_btf_err) {
		kernel_btf = load_mapped();
		if (!kernel_btf)
			kernel_btf = btf__load_vmlinux_btf();
		if (!kernel_btf)
			kernel_btf_err = errno ? errno : ENOENT;
	}
	if (!kernel_btf)
		errno = kernel_btf_err;
	return kernel_btf;
}

int host_raw_tp_nargs(const char *name)
{
	const struct btf *btf = host_kernel_btf();
	char tn[256];
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	int id = btf ? btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;	/* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) ? (int)btf_vlen(t) - 1 : -1;
}
