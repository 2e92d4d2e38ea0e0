/*
 * vdso.c - the vDSO of a process, for naming the frames inside it.
 *
 * The kernel maps a small ELF image, the vDSO, into every process
 * ([vdso] in /proc/PID/maps): clock_gettime, gettimeofday, time and getcpu
 * run there without entering the kernel, so a profile of a program that
 * reads the clock has frames in it.  No file backs it, so the usym cache
 * (elfsym.c), which opens mapped files, cannot name them; perf names them
 * from the image itself, and so does sonde: the bytes of the mapping are
 * read from /proc/PID/mem, copied into a memory file, and parsed as any
 * other ELF (its .dynsym names __vdso_clock_gettime, clock_gettime ...).
 * The image is untrusted input as any memory of a traced process: its size
 * is bounded and libelf parses a copy.  One kernel maps one image per ABI,
 * so when the process is gone (its memory unreadable) sonde's own vDSO
 * (getauxval(AT_SYSINFO_EHDR)) stands in for one of the same size.
 */
#include "host/host.h"
#include "host/host_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* a vDSO is a few pages (8 KiB on x86-64 in 6.x); more is not one */
#define VDSO_MAX (1u << 20)

struct vdso_find {
	uint64_t start, end;
	bool found;
};

static int find_cb(const struct rs_mapping *m, void *ctx)
{
	struct vdso_find *v = ctx;
	if (strcmp(m->path, "[vdso]"))
		return 0;
	v->start = m->start;
	v->end = m->end;
	v->found = true;
	return 1;
}

int rs_vdso_mapping(int pid, uint64_t *start, uint64_t *end)
{
	struct vdso_find v = {0};
	int ret = rs_maps_each_any(pid, find_cb, &v);
	if (ret < 0)
		return ret;
	if (!v.found)
		return -ENOENT;
	*start = v.start;
	*end = v.end;
	return 0;
}

/* len bytes of pid's memory at addr into buf: 0 or -errno */
static int read_mem(int pid, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	ssize_t n = pread(fd, buf, len, (off_t)addr);
	int err = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return err;
}

/* sonde's own vDSO, when it is len bytes long */
static int own_image(void *buf, size_t len)
{
	uint64_t start, end;
	unsigned long at = getauxval(AT_SYSINFO_EHDR);
	if (!at || rs_vdso_mapping(getpid(), &start, &end) || start != at || end - start != len)
		return -ENOENT;
	memcpy(buf, (const void *)(uintptr_t)at, len);
	return 0;
}

int rs_vdso_open(int pid, uint64_t start, uint64_t end, struct rs_elf **out, char *err, size_t errlen)
{
	*out = NULL;
	if (end <= start || end - start > VDSO_MAX) {
		rs_set_err(err, errlen, "pid %d: a [vdso] mapping of %llu bytes is not one", pid,
			   (unsigned long long)(end - start));
		return -EINVAL;
	}
	size_t len = (size_t)(end - start);
	void *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	int ret = read_mem(pid, start, buf, len);
	if (ret && own_image(buf, len)) {
		rs_set_err(err, errlen, "pid %d: cannot read its [vdso]: %s", pid, strerror(-ret));
		free(buf);
		return ret;
	}
	int fd = memfd_create("sonde-vdso", MFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		rs_set_err(err, errlen, "memfd_create: %s", strerror(errno));
		free(buf);
		return ret;
	}
	ret = write(fd, buf, len) == (ssize_t)len && lseek(fd, 0, SEEK_SET) == 0 ? 0 : -EIO;
	free(buf);
	if (!ret)
		ret = rs_elf_open_fd(fd, "[vdso]", "/", out, err, errlen);
	else
		rs_set_err(err, errlen, "cannot copy the [vdso] of pid %d", pid);
	close(fd);
	return ret;
}
