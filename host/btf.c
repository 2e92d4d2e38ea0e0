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

#include <bpf/btf.h>

static struct btf *kernel_btf;
static int kernel_btf_err;

const struct btf *host_kernel_btf(void)
{
	if (!kernel_btf && !kernel_btf_err) {
		kernel_btf = btf__load_vmlinux_btf();
		if (!kernel_btf)
			kernel_btf_err = errno ? errno : ENOENT;
	}
	if (!kernel_btf)
		errno = kernel_btf_err;
	return kernel_btf;
}
