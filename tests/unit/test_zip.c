/*
 * test_zip.c - rs_zip_member(): a member's bytes in a zip archive, for
 * uprobes on "ARCHIVE.zip!/PATH".  Archives are written here byte by byte
 * (local headers, central directory, end record), with a comment after
 * the end record as an archiver may add.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/host.h"

struct zbuf {
	unsigned char b[4096];
	size_t n;
};

static void put16(struct zbuf *z, uint32_t v)
{
	z->b[z->n++] = (unsigned char)v;
	z->b[z->n++] = (unsigned char)(v >> 8);
}

static void put32(struct zbuf *z, uint32_t v)
{
	put16(z, v & 0xffff);
	put16(z, v >> 16);
}

static void putb(struct zbuf *z, const void *p, size_t n)
{
	memcpy(z->b + z->n, p, n);
	z->n += n;
}

struct member {
	const char *name, *data;
	uint32_t method, extra;	/* extra: bytes of extra field in the local header */
	uint32_t at;		/* local header offset (filled in) */
};

/* an archive of the members, then `comment` after the end record */
static int make_zip(struct member *m, int n, const char *comment)
{
	struct zbuf z = {.n = 0};
	for (int i = 0; i < n; i++) {
		m[i].at = (uint32_t)z.n;
		put32(&z, 0x04034b50);
		put16(&z, 10), put16(&z, 0), put16(&z, (uint16_t)m[i].method);
		put32(&z, 0), put32(&z, 0);
		put32(&z, (uint32_t)strlen(m[i].data)), put32(&z, (uint32_t)strlen(m[i].data));
		put16(&z, (uint16_t)strlen(m[i].name)), put16(&z, (uint16_t)m[i].extra);
		putb(&z, m[i].name, strlen(m[i].name));
		for (uint32_t k = 0; k < m[i].extra; k++)
			z.b[z.n++] = 0;
		putb(&z, m[i].data, strlen(m[i].data));
	}
	uint32_t cd = (uint32_t)z.n;
	for (int i = 0; i < n; i++) {
		put32(&z, 0x02014b50);
		put16(&z, 20), put16(&z, 10), put16(&z, 0), put16(&z, (uint16_t)m[i].method);
		put32(&z, 0), put32(&z, 0);
		put32(&z, (uint32_t)strlen(m[i].data)), put32(&z, (uint32_t)strlen(m[i].data));
		put16(&z, (uint16_t)strlen(m[i].name)), put16(&z, 0), put16(&z, 0);
		put16(&z, 0), put16(&z, 0), put32(&z, 0), put32(&z, m[i].at);
		putb(&z, m[i].name, strlen(m[i].name));
	}
	uint32_t cd_size = (uint32_t)z.n - cd;
	put32(&z, 0x06054b50);
	put16(&z, 0), put16(&z, 0), put16(&z, (uint16_t)n), put16(&z, (uint16_t)n);
	put32(&z, cd_size), put32(&z, cd);
	put16(&z, (uint16_t)strlen(comment));
	putb(&z, comment, strlen(comment));
	int fd = memfd_create("zip", 0);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, z.b, z.n), (ssize_t)z.n);
	return fd;
}

static void test_zip_member(void **state)
{
	struct member m[] = {
		{.name = "lib/x86_64/libfoo.so", .data = "ELFBYTES", .method = 0, .extra = 7},
		{.name = "true", .data = "TRUE", .method = 0},
		{.name = "packed", .data = "zz", .method = 8},
	};
	int fd = make_zip(m, 3, "an archiver's comment");
	uint64_t off = 0, size = 0;
	char err[256], got[16] = {0};
	assert_int_equal(rs_zip_member(fd, "true", &off, &size, err, sizeof(err)), 0);
	assert_int_equal(size, 4);
	assert_int_equal(pread(fd, got, 4, (off_t)off), 4);
	assert_string_equal(got, "TRUE");
	/* the local header's own extra field moves the data */
	assert_int_equal(rs_zip_member(fd, "lib/x86_64/libfoo.so", &off, &size, err, sizeof(err)), 0);
	assert_int_equal(off, 30 + strlen(m[0].name) + 7);
	assert_int_equal(size, 8);
	assert_int_equal(rs_zip_member(fd, "tru", &off, &size, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "no member tru in the archive");
	assert_int_equal(rs_zip_member(fd, "packed", &off, &size, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "member packed is compressed: only a stored member (zip -0) can be "
			    "probed in place");
	close(fd);
	/* not an archive */
	fd = memfd_create("notzip", 0);
	assert_int_equal(write(fd, "\x7f" "ELF and more bytes than twenty-two", 35), 35);
	assert_int_equal(rs_zip_member(fd, "true", &off, &size, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "not a zip archive (no end of central directory)");
	close(fd);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zip_member),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
