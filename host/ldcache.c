/*
 * ldcache.c - the host's ld.so cache (/etc/ld.so.cache, glibc's "new"
 * format, also found after an old-format table): the library a short name
 * ("libc", "libssl.so.3") stands for when no running process maps it.
 */
#include "host/host_int.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool elf_is_native(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint16_t mach;

	if (fd < 0)
		return false;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return false;
	if (h[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return false;
	memcpy(&mach, h + 18, 2);
#if defined(__x86_64__)
	return mach == EM_X86_64;
#elif defined(__aarch64__)
	return mach == EM_AARCH64;
#else
	return true;
#endif
}

/* The first entry of /etc/ld.so.cache (glibc's "new" format) whose soname
 * is a short-name match for name and which this machine can run. */
int rs_ldcache_find(const char *name, char *out, size_t outlen)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	FILE *f = fopen("/etc/ld.so.cache", "re");
	unsigned char *buf;
	size_t len, hdr = 0;
	long sz;
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 48 || sz > (64 << 20) ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -ENOENT;
	}
	len = (size_t)sz;
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, f) != len) {
		free(buf);
		fclose(f);
		return -ENOENT;
	}
	fclose(f);
	/* old-format files carry the new table after the old one */
	if (memcmp(buf, magic, sizeof(magic) - 1) != 0) {
		void *p = memmem(buf, len, magic, sizeof(magic) - 1);
		hdr = p ? (size_t)((unsigned char *)p - buf) : len;
	}
	if (hdr + 48 <= len) {
		uint32_t nlibs;
		memcpy(&nlibs, buf + hdr + 20, 4);
		for (uint32_t i = 0; i < nlibs; i++) {
			size_t e = hdr + 48 + (size_t)i * 24;
			uint32_t k, v;
			const char *key, *val;

			if (e + 24 > len)
				break;
			memcpy(&k, buf + e + 4, 4);
			memcpy(&v, buf + e + 8, 4);
			if (hdr + k >= len || hdr + v >= len ||
			    !memchr(buf + hdr + k, 0, len - hdr - k) ||
			    !memchr(buf + hdr + v, 0, len - hdr - v))
				continue;
			key = (const char *)buf + hdr + k;
			val = (const char *)buf + hdr + v;
			if (rs_libname_match(name, key) && val[0] == '/' &&
			    strlen(val) < outlen && elf_is_native(val)) {
				strcpy(out, val);
				ret = 0;
				break;
			}
		}
	}
	free(buf);
	return ret;
}

