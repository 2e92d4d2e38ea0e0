/*
 * zip.c - a member of a zip archive, for uprobes on "ARCHIVE.zip!/PATH"
 * (the newest bpftrace's form, as libbpf 1.2 reads it: an APK's native
 * libraries are stored, not compressed, so the kernel can probe them in
 * place).  The end-of-central-directory record is found from the end,
 * the member in the central directory by its name, its data after its
 * local header.  Only stored members (method 0) can be probed.
 */
#include "host/resolve.h"
#include "host/host_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char *p) { return le16(p) | le16(p + 2) << 16; }

int rs_zip_member(int fd, const char *name, uint64_t *off, uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < 22) {
		rs_set_err(err, errlen, "not a zip archive (too short)");
		return -ENOEXEC;
	}
	/* the EOCD: 22 bytes, then a comment of up to 65535 */
	size_t tail = st.st_size < 22 + 65535 ? (size_t)st.st_size : 22 + 65535;
	unsigned char *buf = malloc(tail);
	if (!buf)
		return -ENOMEM;
	off_t at = st.st_size - (off_t)tail;
	int ret = -ENOEXEC;
	if (pread(fd, buf, tail, at) != (ssize_t)tail) {
		rs_set_err(err, errlen, "cannot read the archive: %s", strerror(errno));
		free(buf);
		return -EIO;
	}
	long eocd = -1;
	for (long i = (long)tail - 22; i >= 0; i--)
		if (le32(buf + i) == 0x06054b50) {
			eocd = i;
			break;
		}
	if (eocd < 0) {
		rs_set_err(err, errlen, "not a zip archive (no end of central directory)");
		free(buf);
		return -ENOEXEC;
	}
	uint32_t n = le16(buf + eocd + 10), cd_size = le32(buf + eocd + 12), cd_off = le32(buf + eocd + 16);
	free(buf);
	if ((uint64_t)cd_off + cd_size > (uint64_t)st.st_size || !(buf = malloc(cd_size ? cd_size : 1)) ||
	    pread(fd, buf, cd_size, cd_off) != (ssize_t)cd_size) {
		rs_set_err(err, errlen, "cannot read the archive's central directory");
		if (buf)
			free(buf);
		return -ENOEXEC;
	}
	size_t nlen = strlen(name), p = 0;
	rs_set_err(err, errlen, "no member %s in the archive", name);
	for (uint32_t i = 0; i < n && p + 46 <= cd_size && le32(buf + p) == 0x02014b50; i++) {
		uint32_t method = le16(buf + p + 10), csize = le32(buf + p + 20);
		uint32_t fl = le16(buf + p + 28), el = le16(buf + p + 30), cl = le16(buf + p + 32);
		uint32_t lh = le32(buf + p + 42);
		if (p + 46 + fl > cd_size)
			break;
		if (fl == nlen && !memcmp(buf + p + 46, name, nlen)) {
			unsigned char h[30];
			if (method != 0) {
				rs_set_err(err, errlen, "member %s is compressed: only a stored member "
					   "(zip -0) can be probed in place", name);
				break;
			}
			if (pread(fd, h, 30, lh) != 30 || le32(h) != 0x04034b50) {
				rs_set_err(err, errlen, "member %s: bad local header", name);
				break;
			}
			*off = (uint64_t)lh + 30 + le16(h + 26) + le16(h + 28);
			*size = csize;
			ret = *off + csize <= (uint64_t)st.st_size ? 0 : -ENOEXEC;
			break;
		}
		p += 46 + fl + el + cl;
	}
	free(buf);
	return ret;
}
