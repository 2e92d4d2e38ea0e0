/*
 * test_resolve.c - /proc/PID/maps parsing, ELF symbol offsets, usym,
 * container ids, short-name rules, in-root opening and the uprobe resolver.
 *
 * The ELF and resolver tests build small shared libraries with gcc into a
 * temporary directory, dlopen them, and take the truth from the kernel: the
 * file offset of a function is where /proc/self/maps says its loaded
 * address comes from.  Container tests run on a fake cgroup tree in the
 * same directory.  Nothing here needs root except the live cgroupfs check,
 * which skips itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "host/host.h"

static char tmpdir[256];

/* ---- fixtures ------------------------------------------------------------ */

static const char lib_src[] =
	"#ifdef PAD\n"
	"__attribute__((used)) static void rs_t_pad(void)\n"
	"{ __asm__ volatile(\".fill 100000, 1, 0x90\"); }\n"
	"#endif\n"
	"int rs_t_alpha(int x) { return x * 3 + 1; }\n"
	"int rs_t_beta(int x) { return x ^ 5; }\n"
	"static __attribute__((noinline)) int rs_t_static(int x) { return x + 7; }\n"
	"int rs_t_call_static(int x) { return rs_t_static(x); }\n"
	"int rs_t_alpha_alias(int x) __attribute__((alias(\"rs_t_alpha\")));\n"
	"void rs_t_part(void) __asm__(\"rs_t_fn.part.0\");\n"
	"void rs_t_part(void) {}\n";

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fprintf(stderr, "fixture command failed: %s\n", cmd);
		abort();
	}
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
}

static char *tp(const char *rel)	/* path in tmpdir; static ring of buffers */
{
	static char bufs[8][RS_PATH_MAX];
	static int i;
	char *b = bufs[i++ % 8];
	snprintf(b, RS_PATH_MAX, "%s/%s", tmpdir, rel);
	return b;
}

static void *h_t, *h_pad, *h_moved, *h_del, *h_sp;
static bool mounted_a, mounted_b;	/* overlays, unmounted by group_teardown */

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rs_test.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	put(tp("libt.c"), lib_src);
	sh("cd %s && gcc -shared -fPIC -O0 -o libt.so libt.c", tmpdir);
	sh("cd %s && gcc -shared -fPIC -O0 -DPAD -o libtpad.so libt.c", tmpdir);
	/* text at vaddr 0x40000 from file offset 0x2000: offsets != vaddrs */
	sh("cd %s && gcc -shared -fPIC -O0 -Wl,--section-start=.text=0x40000 "
	   "-o libtmoved.so libt.c", tmpdir);
	sh("cd %s && cp libt.so libtdel.so && mkdir -p 'dir with space' && "
	   "cp libt.so 'dir with space/libsp.so' && cp libt.so libtfollow.so", tmpdir);
	h_t = dlopen(tp("libt.so"), RTLD_NOW | RTLD_LOCAL);
	h_moved = dlopen(tp("libtmoved.so"), RTLD_NOW | RTLD_LOCAL);
	h_del = dlopen(tp("libtdel.so"), RTLD_NOW | RTLD_LOCAL);
	h_sp = dlopen(tp("dir with space/libsp.so"), RTLD_NOW | RTLD_LOCAL);
	if (!h_t || !h_moved || !h_del || !h_sp) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	unlink(tp("libtdel.so"));	/* maps now says "(deleted)" */
	return 0;
}

static int group_teardown(void **state)
{
	if (h_t)
		dlclose(h_t);
	if (h_pad)
		dlclose(h_pad);
	if (h_moved)
		dlclose(h_moved);
	if (h_del)
		dlclose(h_del);
	if (h_sp)
		dlclose(h_sp);
	if (mounted_a)
		umount2(tp("ov/ma"), MNT_DETACH);
	if (mounted_b)
		umount2(tp("ov/mb"), MNT_DETACH);
	if (tmpdir[0])
		sh("rm -rf '%s'", tmpdir);
	return 0;
}

/* The file offset an address of ours was loaded from, by the kernel's
 * account (parsed here independently of rs_maps_parse_line). */
static uint64_t true_offset(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	uint64_t a = (uint64_t)(uintptr_t)addr, res = UINT64_MAX;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx", &s, &e, perms, &off) == 4 &&
		    a >= s && a < e) {
			res = a - s + off;
			break;
		}
	}
	fclose(f);
	assert_int_not_equal(res, UINT64_MAX);
	return res;
}

/* Opening /proc/PID/map_files needs CAP_SYS_ADMIN (or CHECKPOINT_RESTORE),
 * and deleted files can only be opened there. */
static bool map_files_usable(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], fn[128];
	unsigned long long a, b;
	int fd = -1;

	/* the first file mapping (ASan puts anonymous shadow first) */
	while (f && fd < 0 && fgets(line, sizeof(line), f)) {
		if (!strchr(line, '/') || sscanf(line, "%llx-%llx", &a, &b) != 2)
			continue;
		snprintf(fn, sizeof(fn), "/proc/self/map_files/%llx-%llx", a, b);
		fd = open(fn, O_RDONLY);
		break;
	}
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* ---- maps lines ------------------------------------------------------------ */

static void test_maps_normal(void **state)
{
	struct rs_mapping m;
	assert_int_equal(rs_maps_parse_line(
		"7f11c8a6c000-7f11c8bc2000 r-xp 00026000 fe:00 332835                     "
		"/usr/lib/x86_64-linux-gnu/libc.so.6\n", &m), 0);
	assert_int_equal(m.start, 0x7f11c8a6c000ull);
	assert_int_equal(m.end, 0x7f11c8bc2000ull);
	assert_string_equal(m.perms, "r-xp");
	assert_int_equal(m.offset, 0x26000);
	assert_int_equal(m.dev_major, 0xfe);
	assert_int_equal(m.dev_minor, 0);
	assert_int_equal(m.inode, 332835);
	assert_string_equal(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_false(m.deleted);
	assert_true(rs_mapping_is_exec_file(&m));
}

static void test_maps_spaces(void **state)
{
	struct rs_mapping m;
	assert_int_equal(rs_maps_parse_line(
		"55d0c0000000-55d0c0001000 r-xp 00001000 08:01 42 /opt/my app/lib x.so  \n",
		&m), 0);
	/* inner and trailing spaces belong to the name */
	assert_string_equal(m.path, "/opt/my app/lib x.so  ");
	assert_true(rs_mapping_is_exec_file(&m));
}

static void test_maps_deleted(void **state)
{
	struct rs_mapping m;
	assert_int_equal(rs_maps_parse_line(
		"7f0000000000-7f0000001000 r-xp 00000000 fd:01 99 /usr/lib/libfoo.so.1 (deleted)\n",
		&m), 0);
	assert_true(m.deleted);
	assert_string_equal(m.path, "/usr/lib/libfoo.so.1");
	assert_int_equal(rs_maps_parse_line(
		"7f0000000000-7f0000001000 r-xp 00000000 00:01 77 /memfd:jit (deleted)", &m), 0);
	assert_true(m.deleted);
	assert_string_equal(m.path, "/memfd:jit");
	/* the suffix alone is a (strange) name, not a deleted file */
	assert_int_equal(rs_maps_parse_line(
		"7f0000000000-7f0000001000 r-xp 00000000 00:01 77  (deleted)", &m), 0);
	assert_false(m.deleted);
	assert_string_equal(m.path, "(deleted)");
	assert_false(rs_mapping_is_exec_file(&m));
}

static void test_maps_anon_and_pseudo(void **state)
{
	struct rs_mapping m;
	assert_int_equal(rs_maps_parse_line(
		"7f11c89c3000-7f11c89e5000 rw-p 00000000 00:00 0 \n", &m), 0);
	assert_string_equal(m.path, "");
	assert_int_equal(m.inode, 0);
	assert_false(rs_mapping_is_exec_file(&m));
	assert_int_equal(rs_maps_parse_line(
		"7f11c89c3000-7f11c89e5000 rw-p 00000000 00:00 0", &m), 0);
	assert_string_equal(m.path, "");
	assert_int_equal(rs_maps_parse_line(
		"7ffd5b9f2000-7ffd5b9f4000 r-xp 00000000 00:00 0                          [vdso]\n",
		&m), 0);
	assert_string_equal(m.path, "[vdso]");
	assert_false(rs_mapping_is_exec_file(&m));
	assert_int_equal(rs_maps_parse_line(
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
		&m), 0);
	assert_false(rs_mapping_is_exec_file(&m));
	/* shared mapping of a device file is fine as text */
	assert_int_equal(rs_maps_parse_line(
		"7f0000000000-7f0000001000 rw-s 00000000 00:05 1234 /dev/zero", &m), 0);
	assert_string_equal(m.perms, "rw-s");
}

static void test_maps_malformed(void **state)
{
	static const char *bad[] = {
		"",
		"\n",
		"garbage",
		"7f-7e r-xp 0 fe:00 1 /x",			/* start > end */
		"7f-7f r-xp 0 fe:00 1 /x",			/* empty */
		"7f-80 r-xq 0 fe:00 1 /x",			/* bad perms */
		"7f-80 rwx 0 fe:00 1 /x",
		"7f-80 r-xp 0 fe00 1 /x",			/* no colon */
		"7f-80 r-xp 0 fe:00 x /x",			/* inode not decimal */
		"7f-80 r-xp 0 fe:00 12x /x",
		"7f-80 r-xp zz fe:00 1 /x",
		"-80 r-xp 0 fe:00 1 /x",
		"7f 80 r-xp 0 fe:00 1 /x",
		"7f-80  r-xp 0 fe:00 1 /x",			/* two spaces */
		"g7f-80 r-xp 0 fe:00 1 /x",
		"7f-80 r-xp 0 fe:00 1 /x\nextra",		/* two lines */
		"7f-80 r-xp 0 1000:00 1 /x",			/* major > 12 bits */
		"7f-80 r-xp 0 fe:100000 1 /x",			/* minor > 20 bits */
		/* 17 hex digits overflow 64 bits */
		"10000000000000000-20000000000000000 r-xp 0 fe:00 1 /x",
		"7f-80 r-xp 10000000000000000 fe:00 1 /x",
		/* inode beyond 2^64 */
		"7f-80 r-xp 0 fe:00 18446744073709551616 /x",
	};
	struct rs_mapping m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rs_maps_parse_line(bad[i], &m) != -EINVAL) {
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
			fail();
		}
	}
	assert_int_equal(rs_maps_parse_line(NULL, &m), -EINVAL);
}

static void test_maps_truncated(void **state)
{
	const char *full = "7f11c8a6c000-7f11c8bc2000 r-xp 00026000 fe:00 332835 /lib/libc.so.6";
	size_t inode_end = strstr(full, "332835") - full + 6;
	char buf[256];
	struct rs_mapping m;

	/* every cut before the inode is complete is malformed, and no cut
	 * crashes or reads past the end */
	for (size_t n = 0; n < strlen(full); n++) {
		memcpy(buf, full, n);
		buf[n] = '\0';
		int r = rs_maps_parse_line(buf, &m);
		if (n < inode_end - 5)
			assert_int_equal(r, -EINVAL);
	}
	/* a cut inside the inode still parses, as a shorter inode */
	memcpy(buf, full, inode_end - 2);
	buf[inode_end - 2] = '\0';
	assert_int_equal(rs_maps_parse_line(buf, &m), 0);
	assert_int_equal(m.inode, 3328);
}

static void test_maps_huge(void **state)
{
	struct rs_mapping m;
	char *line;
	size_t n = RS_PATH_MAX + 100;

	assert_int_equal(rs_maps_parse_line(
		"ffffffffffff0000-ffffffffffffffff r-xp ffffffffffffffff fff:fffff "
		"18446744073709551615 /x", &m), 0);
	assert_int_equal(m.end, UINT64_MAX);
	assert_int_equal(m.offset, UINT64_MAX);
	assert_int_equal(m.inode, UINT64_MAX);
	assert_int_equal(m.dev_major, 0xfff);
	assert_int_equal(m.dev_minor, 0xfffff);

	/* a path longer than RS_PATH_MAX is refused, not truncated */
	line = malloc(n + 64);
	assert_non_null(line);
	strcpy(line, "7f-80 r-xp 0 fe:00 1 /");
	memset(line + strlen(line), 'a', n);
	line[strlen("7f-80 r-xp 0 fe:00 1 /") + n] = '\0';
	assert_int_equal(rs_maps_parse_line(line, &m), -ENAMETOOLONG);
	free(line);
}

struct each_ctx {
	int exe_seen, libt_seen, nonexec;
};

static int each_cb(const struct rs_mapping *m, void *ctx)
{
	struct each_ctx *ec = ctx;
	char exe[RS_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		if (strcmp(exe, m->path) == 0)
			ec->exe_seen++;
	}
	if (strcmp(m->path, tp("libt.so")) == 0)
		ec->libt_seen++;
	if (m->perms[2] != 'x')
		ec->nonexec++;
	return 0;
}

static void test_maps_each_self(void **state)
{
	struct each_ctx ec = { 0 };
	assert_int_equal(rs_maps_each(getpid(), each_cb, &ec), 0);
	assert_true(ec.exe_seen >= 1);
	assert_int_equal(ec.libt_seen, 1);
	assert_int_equal(ec.nonexec, 0);
	assert_int_equal(rs_maps_each(0x3ffffff0, each_cb, &ec), -ESRCH);
}

/* ---- short names --------------------------------------------------------- */

static void test_libname(void **state)
{
	assert_true(rs_libname_match("libc", "libc.so.6"));
	assert_true(rs_libname_match("libc", "libc.so"));
	assert_true(rs_libname_match("libc", "libc-2.31.so"));
	assert_true(rs_libname_match("libc", "libc"));
	assert_true(rs_libname_match("libc", "ld-musl-x86_64.so.1"));
	assert_true(rs_libname_match("libcudart", "libcudart.so.12"));
	assert_true(rs_libname_match("libcudart", "libcudart.so.12.2.140"));
	assert_true(rs_libname_match("libglib-2.0", "libglib-2.0.so.0"));
	assert_true(rs_libname_match("libstdc++", "libstdc++.so.6"));
	assert_true(rs_libname_match("libc.so.6", "libc.so.6"));
	assert_false(rs_libname_match("libc", "libcrypto.so.3"));
	assert_false(rs_libname_match("libc", "libc.so.6.bak"));
	assert_false(rs_libname_match("libc", "libc-dev.so"));
	assert_false(rs_libname_match("libc", "libc_nonshared.a"));
	assert_false(rs_libname_match("libcudart", "libcudart_static.a"));
	assert_false(rs_libname_match("libc", "mylibc.so.6"));
	assert_false(rs_libname_match("c", "libc.so.6"));	/* bpftrace rejects it too */
	assert_false(rs_libname_match("libm", "ld-musl-x86_64.so.1"));
	assert_false(rs_libname_match("", "libc.so.6"));
	assert_false(rs_libname_match("lib/c", "libc.so.6"));
}

/* ---- opening inside a root ------------------------------------------------- */

static void test_open_in_root(void **state)
{
	struct stat inside, host, got;
	int fd;

	sh("cd %s && mkdir -p root/lib root/etc && echo real > root/lib/real.so && "
	   "ln -sf /lib/real.so root/lib/abs && ln -sf /etc/passwd root/lib/escape && "
	   "ln -sf ../../../../../../../etc/passwd root/lib/dotdot && "
	   "ln -sf /proc/self/root/etc/passwd root/lib/magic", tmpdir);

	/* an absolute symlink means the root's file */
	fd = rs_open_in_root(tp("root"), "/lib/abs", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &got), 0);
	assert_int_equal(stat(tp("root/lib/real.so"), &inside), 0);
	assert_int_equal(got.st_ino, inside.st_ino);
	close(fd);

	/* links that would leave the root never reach the host's file */
	assert_true(rs_open_in_root(tp("root"), "/lib/escape", O_RDONLY) < 0);
	assert_true(rs_open_in_root(tp("root"), "/lib/dotdot", O_RDONLY) < 0);
	assert_true(rs_open_in_root(tp("root"), "/lib/magic", O_RDONLY) < 0);
	assert_true(rs_open_in_root(tp("root"), "/../../../etc/passwd", O_RDONLY) < 0);

	/* ... they land on the root's own /etc/passwd when it has one */
	put(tp("root/etc/passwd"), "container\n");
	assert_int_equal(stat("/etc/passwd", &host), 0);
	assert_int_equal(stat(tp("root/etc/passwd"), &inside), 0);
	fd = rs_open_in_root(tp("root"), "/lib/escape", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &got), 0);
	assert_int_equal(got.st_ino, inside.st_ino);
	assert_true(got.st_ino != host.st_ino || got.st_dev != host.st_dev);
	close(fd);
	fd = rs_open_in_root(tp("root"), "/lib/dotdot", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &got), 0);
	assert_int_equal(got.st_ino, inside.st_ino);
	close(fd);
}

struct find_map {
	const char *path;
	struct rs_mapping m;
	bool found;
};

static int find_map_cb(const struct rs_mapping *m, void *ctx)
{
	struct find_map *fm = ctx;
	if (strcmp(m->path, fm->path) != 0)
		return 0;
	fm->m = *m;
	fm->found = true;
	return 1;
}

static void test_open_mapping_verifies(void **state)
{
	struct find_map *fm = calloc(1, sizeof(*fm));
	char err[512];
	int fd;

	assert_non_null(fm);
	fm->path = tp("libt.so");
	assert_int_equal(rs_maps_each(getpid(), find_map_cb, fm), 1);
	assert_true(fm->found);

	fd = rs_open_mapping(getpid(), &fm->m, 0, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	fd = rs_open_mapping(getpid(), &fm->m, RS_OPEN_BY_PATH, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);

	/* a path that now names another inode is refused either way */
	fm->m.inode++;
	assert_int_equal(rs_open_mapping(getpid(), &fm->m, 0, err, sizeof(err)), -ESTALE);
	assert_int_equal(rs_open_mapping(getpid(), &fm->m, RS_OPEN_BY_PATH, err,
					 sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "is not the file it maps"));
	fm->m.inode--;

	/* a deleted file has no path to fall back to */
	fm->m.deleted = true;
	assert_int_equal(rs_open_mapping(getpid(), &fm->m, RS_OPEN_BY_PATH, err,
					 sizeof(err)), -ENOENT);
	free(fm);
}

static void test_open_deleted_mapping(void **state)
{
	struct find_map *fm = calloc(1, sizeof(*fm));
	char err[512];
	int fd;

	assert_non_null(fm);
	fm->path = tp("libtdel.so");
	assert_int_equal(rs_maps_each(getpid(), find_map_cb, fm), 1);
	assert_true(fm->m.deleted);
	fd = rs_open_mapping(getpid(), &fm->m, 0, err, sizeof(err));
	if (!map_files_usable()) {
		/* unprivileged: refused with a reason, never a wrong file */
		assert_true(fd < 0);
		assert_non_null(strstr(err, "was deleted"));
		free(fm);
		skip();
		return;
	}
	assert_true(fd >= 0);
	close(fd);
	free(fm);
}


static void test_real_inode_overlay(void **state)
{
	struct stat lower, a, b, plain;
	uint64_t dev, ino, dev2, ino2;
	char opts[3][RS_PATH_MAX + 200];
	int fa, fb, fp;

	/* a plain file is its own identity */
	fp = open(tp("libt.so"), O_RDONLY);
	assert_true(fp >= 0);
	assert_int_equal(fstat(fp, &plain), 0);
	assert_int_equal(rs_real_inode(0, tp("libt.so"), fp, &dev, &ino), 0);
	assert_int_equal(dev, plain.st_dev);
	assert_int_equal(ino, plain.st_ino);
	close(fp);

	/* two overlays over one lower layer: two inodes, one real file */
	sh("cd %s && mkdir -p ov/lower ov/ua ov/wa ov/ma ov/ub ov/wb ov/mb && "
	   "cp libt.so ov/lower/libx.so", tmpdir);
	snprintf(opts[0], sizeof(opts[0]), "lowerdir=%s,upperdir=%s,workdir=%s",
		 tp("ov/lower"), tp("ov/ua"), tp("ov/wa"));
	snprintf(opts[1], sizeof(opts[1]), "lowerdir=%s,upperdir=%s,workdir=%s",
		 tp("ov/lower"), tp("ov/ub"), tp("ov/wb"));
	if (mount("overlay", tp("ov/ma"), "overlay", 0, opts[0]) != 0) {
		skip();	/* needs root and overlayfs */
		return;
	}
	mounted_a = true;
	if (mount("overlay", tp("ov/mb"), "overlay", 0, opts[1]) != 0) {
		skip();
		return;
	}
	mounted_b = true;
	fa = open(tp("ov/ma/libx.so"), O_RDONLY);
	fb = open(tp("ov/mb/libx.so"), O_RDONLY);
	assert_true(fa >= 0 && fb >= 0);
	assert_int_equal(fstat(fa, &a), 0);
	assert_int_equal(fstat(fb, &b), 0);
	assert_int_equal(stat(tp("ov/lower/libx.so"), &lower), 0);
	assert_true(a.st_dev != b.st_dev);
	assert_int_equal(rs_real_inode(0, tp("ov/ma/libx.so"), fa, &dev, &ino), 0);
	assert_int_equal(rs_real_inode(0, tp("ov/mb/libx.so"), fb, &dev2, &ino2), 0);
	assert_int_equal(dev, lower.st_dev);
	assert_int_equal(ino, lower.st_ino);
	assert_int_equal(dev2, dev);
	assert_int_equal(ino2, ino);
	close(fa);
	close(fb);

	/* a copied-up file is the upper layer's own */
	sh("cat %s/libt.so > %s/ov/mb/libx.so", tmpdir, tmpdir);
	fb = open(tp("ov/mb/libx.so"), O_RDONLY);
	assert_true(fb >= 0);
	assert_int_equal(rs_real_inode(0, tp("ov/mb/libx.so"), fb, &dev2, &ino2), 0);
	assert_int_equal(stat(tp("ov/ub/libx.so"), &b), 0);
	assert_int_equal(ino2, b.st_ino);
	assert_true(ino2 != lower.st_ino);
	close(fb);
}

/* ---- ELF ----------------------------------------------------------------- */

static uint64_t elf_offset_of(struct rs_elf *e, const char *name)
{
	size_t n;
	const struct rs_sym *s = rs_elf_syms(e, &n);
	uint64_t off;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s[i].name, name) == 0) {
			assert_int_equal(rs_elf_vaddr_to_offset(e, s[i].vaddr, &off), 0);
			return off;
		}
	}
	fail_msg("no symbol %s", name);
	return 0;
}

static void test_elf_offsets(void **state)
{
	struct rs_elf *e;
	char err[512];
	uint64_t off, back;

	assert_int_equal(rs_elf_open(tp("libt.so"), &e, err, sizeof(err)), 0);
	off = elf_offset_of(e, "rs_t_alpha");
	assert_int_equal(off, true_offset(dlsym(h_t, "rs_t_alpha")));
	assert_int_equal(elf_offset_of(e, "rs_t_beta"), true_offset(dlsym(h_t, "rs_t_beta")));
	assert_int_equal(rs_elf_offset_to_vaddr(e, off, &back), 0);
	rs_elf_free(e);

	/* text linked away from its file offset: the PT_LOAD math matters */
	assert_int_equal(rs_elf_open(tp("libtmoved.so"), &e, err, sizeof(err)), 0);
	off = elf_offset_of(e, "rs_t_alpha");
	assert_int_equal(off, true_offset(dlsym(h_moved, "rs_t_alpha")));
	{
		size_t n;
		const struct rs_sym *s = rs_elf_syms(e, &n);
		for (size_t i = 0; i < n; i++)
			if (strcmp(s[i].name, "rs_t_alpha") == 0)
				assert_true(s[i].vaddr != off);
	}
	assert_int_equal(rs_elf_offset_to_vaddr(e, off, &back), 0);
	assert_int_equal(rs_elf_vaddr_to_offset(e, back, &off), 0);
	assert_int_equal(off, true_offset(dlsym(h_moved, "rs_t_alpha")));
	rs_elf_free(e);
}

static void test_elf_padding_moves_symbol(void **state)
{
	struct rs_elf *e1, *e2;
	char err[512];
	uint64_t a, b;

	h_pad = dlopen(tp("libtpad.so"), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h_pad);
	assert_int_equal(rs_elf_open(tp("libt.so"), &e1, err, sizeof(err)), 0);
	assert_int_equal(rs_elf_open(tp("libtpad.so"), &e2, err, sizeof(err)), 0);
	a = elf_offset_of(e1, "rs_t_beta");
	b = elf_offset_of(e2, "rs_t_beta");
	assert_true(b >= a + 100000);
	assert_int_equal(b, true_offset(dlsym(h_pad, "rs_t_beta")));
	rs_elf_free(e1);
	rs_elf_free(e2);
}

static int collect_cb(const struct rs_sym *s, void *ctx)
{
	char *buf = ctx;
	strcat(buf, s->name);
	strcat(buf, " ");
	return 0;
}

static void test_elf_match_and_aliases(void **state)
{
	struct rs_elf *e;
	char err[512], names[1024] = "";
	const struct rs_sym *s;
	size_t n;
	uint64_t alpha = 0;

	assert_int_equal(rs_elf_open(tp("libt.so"), &e, err, sizeof(err)), 0);
	/* .symtab and .dynsym both list rs_t_alpha: it appears once */
	assert_int_equal(rs_elf_each_match(e, "rs_t_alpha", NULL, NULL), 1);
	/* static functions come from .symtab */
	assert_int_equal(rs_elf_each_match(e, "rs_t_static", NULL, NULL), 1);
	/* globs skip .part.N pieces; the exact name still finds one */
	assert_int_equal(rs_elf_each_match(e, "rs_t_*", collect_cb, names), 5);
	assert_null(strstr(names, ".part."));
	assert_non_null(strstr(names, "rs_t_alpha_alias"));
	assert_int_equal(rs_elf_each_match(e, "rs_t_fn.part.0", NULL, NULL), 1);
	assert_int_equal(rs_elf_each_match(e, "rs_t_?eta", NULL, NULL), 1);
	assert_int_equal(rs_elf_each_match(e, "nosuch", NULL, NULL), 0);

	/* the alias shares the address; the shorter name is preferred */
	s = rs_elf_syms(e, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, "rs_t_alpha") == 0)
			alpha = s[i].vaddr;
	assert_true(alpha != 0);
	assert_string_equal(rs_elf_addr_sym(e, alpha)->name, "rs_t_alpha");
	assert_string_equal(rs_elf_addr_sym(e, alpha + 3)->name, "rs_t_alpha");
	assert_null(rs_elf_addr_sym(e, 1));
	rs_elf_free(e);
}

static void test_elf_bad_files(void **state)
{
	struct rs_elf *e = (struct rs_elf *)1;
	char err[512];
	int fd;

	assert_int_equal(rs_elf_open(tp("nonexistent.so"), &e, err, sizeof(err)), -ENOENT);
	assert_null(e);
	put(tp("text.so"), "not an elf\n");
	assert_int_equal(rs_elf_open(tp("text.so"), &e, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "is not an ELF file"));
	/* an ELF header with nothing behind it */
	sh("head -c 100 %s/libt.so > %s/trunc.so", tmpdir, tmpdir);
	assert_true(rs_elf_open(tp("trunc.so"), &e, err, sizeof(err)) < 0);
	/* headers intact, section data cut off */
	sh("head -c 6000 %s/libt.so > %s/trunc2.so", tmpdir, tmpdir);
	if (rs_elf_open(tp("trunc2.so"), &e, err, sizeof(err)) == 0)
		rs_elf_free(e);
	/* a relocatable object is not a probe target */
	sh("cd %s && gcc -c -fPIC -o libt.o libt.c", tmpdir);
	assert_int_equal(rs_elf_open(tp("libt.o"), &e, err, sizeof(err)), -ENOEXEC);
	fd = open(tp("libt.so"), O_RDONLY);
	assert_int_equal(rs_elf_open_fd(fd, "libt.so", NULL, &e, err, sizeof(err)), 0);
	close(fd);
	assert_string_equal(rs_elf_name(e), "libt.so");
	rs_elf_free(e);
}

/* ---- usym ---------------------------------------------------------------- */

static __attribute__((noinline)) int rs_test_local_fn(int x)
{
	return x * 11 + 3;
}

static void test_usym_self(void **state)
{
	struct rs_symcache *c = rs_symcache_new();
	struct rs_usym u;
	char exe[RS_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t a = (uint64_t)(uintptr_t)&rs_test_local_fn;
	int (*beta)(int) = (int (*)(int))dlsym(h_moved, "rs_t_beta");
	void *heap = malloc(16);

	assert_non_null(c);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(rs_test_local_fn(1), 14);

	/* a static function of this PIE executable */
	assert_int_equal(rs_usym(c, getpid(), a + 2, &u), 0);
	assert_string_equal(u.name, "rs_test_local_fn");
	assert_int_equal(u.off, 2);
	assert_string_equal(u.file, exe);

	/* a library whose text is not at its file offset */
	assert_int_equal(rs_usym(c, getpid(), (uint64_t)(uintptr_t)beta + 1, &u), 0);
	assert_string_equal(u.name, "rs_t_beta");
	assert_int_equal(u.off, 1);
	assert_string_equal(u.file, tp("libtmoved.so"));

	/* a deleted library, read through map_files */
	if (map_files_usable()) {
		assert_int_equal(rs_usym(c, getpid(),
					 (uint64_t)(uintptr_t)dlsym(h_del, "rs_t_alpha"), &u), 0);
		assert_string_equal(u.name, "rs_t_alpha");
		assert_int_equal(u.off, 0);
	}

	/* libc, through .dynsym (and the debug file, when installed) */
	assert_int_equal(rs_usym(c, getpid(),
				 (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "gnu_get_libc_version"),
				 &u), 0);
	assert_string_equal(u.name, "gnu_get_libc_version");

	/* heap is not a file mapping */
	assert_int_equal(rs_usym(c, getpid(), (uint64_t)(uintptr_t)heap, &u), -ENOENT);
	assert_null(u.name);
	assert_int_equal(rs_usym(c, 0x3ffffff0, 0x1000, &u), -ESRCH);

	/* after forget, the next lookup reads maps again */
	rs_symcache_forget(c, getpid());
	assert_int_equal(rs_usym(c, getpid(), a, &u), 0);
	assert_string_equal(u.name, "rs_test_local_fn");
	free(heap);
	rs_symcache_free(c);
}

/* ---- containers ---------------------------------------------------------- */

#define ID_A "abcd111111111111111111111111111111111111111111111111111111111111"
#define ID_B "abcd222222222222222222222222222222222222222222222222222222222222"
#define ID_C "c0ffee0000000000000000000000000000000000000000000000000000000000"
#define ID_D "d00d333333333333333333333333333333333333333333333333333333333333"
#define ID_E "e0e0444444444444444444444444444444444444444444444444444444444444"
#define ID_F "f00f555555555555555555555555555555555555555555555555555555555555"

static char cgroot[300];

static int cg_setup(void **state)
{
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmpdir);
	sh("rm -rf %s && mkdir -p %s && cd %s && "
	   "mkdir -p system.slice/docker-" ID_A ".scope/init.scope "
	   "system.slice/docker-" ID_B ".scope system.slice/sshd.service "
	   "machine.slice/libpod-conmon-" ID_C ".scope machine.slice/libpod-" ID_C ".scope "
	   "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice/"
	   "cri-containerd-" ID_D ".scope "
	   "machine.slice/crio-" ID_E ".scope machine.slice/crio-conmon-" ID_E ".scope "
	   "docker/" ID_F " && "
	   "echo 1 > cgroup.procs && "
	   "printf '101\\n100\\n' > system.slice/docker-" ID_A ".scope/cgroup.procs && "
	   "printf '102\\n100\\n' > system.slice/docker-" ID_A ".scope/init.scope/cgroup.procs && "
	   "echo 55 > system.slice/sshd.service/cgroup.procs",
	   cgroot, cgroot, cgroot);
	return 0;
}

static uint64_t ino_of(const char *rel)
{
	char p[RS_PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s", cgroot, rel);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

static void test_container_id_of(void **state)
{
	char id[65];
	assert_string_equal(rs_container_id_of("docker-" ID_A ".scope", "system.slice", id),
			    "docker");
	assert_string_equal(id, ID_A);
	assert_string_equal(rs_container_id_of("cri-containerd-" ID_D ".scope", "x", id),
			    "containerd");
	assert_string_equal(rs_container_id_of("crio-" ID_E ".scope", "x", id), "crio");
	assert_string_equal(rs_container_id_of("crio-" ID_E, "x", id), "crio");
	assert_string_equal(rs_container_id_of("libpod-" ID_C ".scope", "x", id), "podman");
	assert_string_equal(rs_container_id_of(ID_F, "docker", id), "docker");
	assert_string_equal(id, ID_F);
	assert_string_equal(rs_container_id_of(ID_F, "pod1234", id), "cri");
	assert_null(rs_container_id_of("libpod-conmon-" ID_C ".scope", "x", id));
	assert_null(rs_container_id_of("crio-conmon-" ID_E ".scope", "x", id));
	assert_null(rs_container_id_of("docker-abcd.scope", "x", id));
	assert_null(rs_container_id_of("docker-" ID_A ".slice", "x", id));
	assert_null(rs_container_id_of("sshd.service", "x", id));
	assert_null(rs_container_id_of("docker-ABCD111111111111111111111111111111111111111111111111111111111111.scope",
				       "x", id));
}

static void test_container_find(void **state)
{
	struct rs_container *c;
	char err[1024];

	assert_int_equal(rs_container_find(cgroot, ID_A, &c, err, sizeof(err)), 0);
	assert_string_equal(c->id, ID_A);
	assert_string_equal(c->engine, "docker");
	assert_string_equal(c->path, "/system.slice/docker-" ID_A ".scope");
	assert_int_equal(c->level, 2);
	assert_int_equal(c->cgroup_id, ino_of("/system.slice/docker-" ID_A ".scope"));
	rs_container_free(c);

	/* unique prefixes, any case */
	assert_int_equal(rs_container_find(cgroot, "abcd1", &c, err, sizeof(err)), 0);
	assert_string_equal(c->id, ID_A);
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "ABCD2", &c, err, sizeof(err)), 0);
	assert_string_equal(c->id, ID_B);
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "c0ffee", &c, err, sizeof(err)), 0);
	assert_string_equal(c->engine, "podman");
	assert_string_equal(c->path, "/machine.slice/libpod-" ID_C ".scope");
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "d00d", &c, err, sizeof(err)), 0);
	assert_string_equal(c->engine, "containerd");
	assert_int_equal(c->level, 4);
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "e0e0", &c, err, sizeof(err)), 0);
	assert_string_equal(c->engine, "crio");
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "f00f", &c, err, sizeof(err)), 0);
	assert_string_equal(c->engine, "docker");
	assert_string_equal(c->path, "/docker/" ID_F);
	rs_container_free(c);

	/* ambiguous: both candidates named */
	assert_int_equal(rs_container_find(cgroot, "abcd", &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
	assert_non_null(strstr(err, "container id 'abcd' is ambiguous: "));
	assert_non_null(strstr(err, "docker-abcd11111111\u2026"));
	assert_non_null(strstr(err, "docker-abcd22222222\u2026"));

	/* no match: the containers there are listed */
	assert_int_equal(rs_container_find(cgroot, "9999", &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no container id starts with '9999'"));
	assert_non_null(strstr(err, "crio-e0e044444444\u2026"));

	assert_int_equal(rs_container_find(cgroot, "abc", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too short"));
	assert_int_equal(rs_container_find(cgroot, "xyz!", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(rs_container_find(cgroot, "", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(rs_container_find(cgroot, ID_A "0", &c, err, sizeof(err)), -EINVAL);
}

static void test_container_by_path(void **state)
{
	struct rs_container *c;
	char err[1024], abs[RS_PATH_MAX];

	assert_int_equal(rs_container_find(cgroot, "/system.slice/sshd.service", &c, err,
					   sizeof(err)), 0);
	assert_string_equal(c->id, "");
	assert_string_equal(c->engine, "cgroup");
	assert_int_equal(c->level, 2);
	assert_int_equal(c->cgroup_id, ino_of("/system.slice/sshd.service"));
	rs_container_free(c);

	snprintf(abs, sizeof(abs), "%s/system.slice/docker-" ID_A ".scope/", cgroot);
	assert_int_equal(rs_container_find(cgroot, abs, &c, err, sizeof(err)), 0);
	assert_string_equal(c->id, ID_A);
	assert_string_equal(c->path, "/system.slice/docker-" ID_A ".scope");
	rs_container_free(c);

	/* inside a container's cgroup: the container is still named */
	assert_int_equal(rs_container_find(cgroot, "system.slice/docker-" ID_A
					   ".scope/init.scope", &c, err, sizeof(err)), 0);
	assert_string_equal(c->id, ID_A);
	assert_int_equal(c->level, 3);
	rs_container_free(c);

	assert_int_equal(rs_container_find(cgroot, "/nope/x", &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(rs_container_find(cgroot, "/system.slice/../..", &c, err,
					   sizeof(err)), -EINVAL);
}

static void test_container_pids(void **state)
{
	struct rs_container *c;
	char err[1024];
	int *pids;
	size_t n;

	assert_int_equal(rs_container_find(cgroot, "abcd1", &c, err, sizeof(err)), 0);
	assert_int_equal(rs_container_pids(c, &pids, &n), 0);
	/* its own and its child cgroup's, sorted, once each */
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 100);
	assert_int_equal(pids[1], 101);
	assert_int_equal(pids[2], 102);
	free(pids);
	rs_container_free(c);
	assert_int_equal(rs_container_find(cgroot, "abcd2", &c, err, sizeof(err)), 0);
	assert_int_equal(rs_container_pids(c, &pids, &n), 0);
	assert_int_equal(n, 0);
	free(pids);
	rs_container_free(c);
}

static void test_cgcache(void **state)
{
	struct rs_cgcache *cc = rs_cgcache_new(cgroot);
	uint64_t a = ino_of("/system.slice/docker-" ID_A ".scope");
	uint64_t ai = ino_of("/system.slice/docker-" ID_A ".scope/init.scope");
	uint64_t ssh = ino_of("/system.slice/sshd.service");
	uint64_t d = ino_of("/kubepods.slice/kubepods-burstable.slice/"
			    "kubepods-burstable-pod12_34.slice/cri-containerd-" ID_D ".scope");

	assert_non_null(cc);
	assert_string_equal(rs_cgroup_container(cc, a), "abcd11111111");
	assert_string_equal(rs_cgroup_container(cc, ai), "abcd11111111");
	assert_string_equal(rs_cgroup_container(cc, d), "d00d33333333");
	assert_string_equal(rs_cgroup_container(cc, ssh), "");
	assert_string_equal(rs_cgroup_path(cc, ssh), "/system.slice/sshd.service");
	assert_string_equal(rs_cgroup_path(cc, ai),
			    "/system.slice/docker-" ID_A ".scope/init.scope");
	assert_string_equal(rs_cgroup_path(cc, ino_of("")), "/");
	assert_string_equal(rs_cgroup_container(cc, ino_of("")), "");
	/* cached: a second lookup gives the same pointer */
	assert_ptr_equal(rs_cgroup_path(cc, a), rs_cgroup_path(cc, a));
	/* unknown ids are "" and NULL, never a crash */
	assert_string_equal(rs_cgroup_container(cc, 0xfffffffffffull), "");
	assert_null(rs_cgroup_path(cc, 0xfffffffffffull));
	rs_cgcache_free(cc);
	assert_string_equal(rs_cgroup_container(NULL, 1), "");
}

static void test_cgroup2_live(void **state)
{
	char root[RS_PATH_MAX], dir[RS_PATH_MAX + 32];
	struct statfs sf;
	struct stat st;
	struct rs_cgcache *cc;

	if (rs_cgroup2_root(root, sizeof(root))) {
		skip();
		return;
	}
	assert_int_equal(statfs(root, &sf), 0);
	assert_int_equal((unsigned long)sf.f_type, 0x63677270ul);
	/* a fresh cgroup's inode is what the cache maps back to its path */
	snprintf(dir, sizeof(dir), "%s/sonde-test-%d", root, getpid());
	if (mkdir(dir, 0755) != 0) {
		skip();
		return;
	}
	assert_int_equal(stat(dir, &st), 0);
	cc = rs_cgcache_new(NULL);
	assert_non_null(cc);
	{
		char want[64];
		snprintf(want, sizeof(want), "/sonde-test-%d", getpid());
		assert_string_equal(rs_cgroup_path(cc, st.st_ino), want);
	}
	assert_string_equal(rs_cgroup_container(cc, st.st_ino), "");
	rs_cgcache_free(cc);
	rmdir(dir);
}

/* ---- the resolver -------------------------------------------------------- */

static char notes[8192];

static void note_cb(void *ctx, enum rs_note_level lvl, const char *msg)
{
	size_t n = strlen(notes);
	snprintf(notes + n, sizeof(notes) - n, "%s: %s\n",
		 lvl == RS_NOTE_WARN ? "warn" : "info", msg);
}

static bool has_pid(const struct rs_file *f, int pid)
{
	for (size_t i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

static void test_resolve_short_name_pid(void **state)
{
	struct rs_query q = { .target = "libt", .func = "rs_t_alpha", .pid = getpid(),
			      .note = note_cb };
	struct rs_sites *s;
	char err[1024];
	struct stat st, via;

	notes[0] = '\0';
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	assert_int_equal(s->nsites, 1);
	assert_int_equal(s->nfiles, 1);
	assert_string_equal(s->sites[0].sym, "rs_t_alpha");
	assert_int_equal(s->sites[0].offset, true_offset(dlsym(h_t, "rs_t_alpha")));
	assert_string_equal(s->sites[0].file->path, tp("libt.so"));
	assert_true(s->sites[0].file->host);
	assert_true(has_pid(s->sites[0].file, getpid()));
	/* the attach path names the very inode */
	assert_int_equal(stat(tp("libt.so"), &st), 0);
	assert_int_equal(stat(s->sites[0].file->attach_path, &via), 0);
	assert_int_equal(st.st_ino, via.st_ino);
	assert_int_equal(s->sites[0].file->ino, st.st_ino);
	assert_non_null(strstr(notes, "info: libt:rs_t_alpha -> "));
	rs_sites_free(s);
}

static void test_resolve_glob_dedupes_aliases(void **state)
{
	struct rs_query q = { .target = tp("libt.so"), .func = "rs_t_*", .pid = getpid() };
	struct rs_sites *s;
	char err[1024];
	int alpha = 0;

	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	/* alpha (= alpha_alias), beta, static, call_static; no .part.0 */
	assert_int_equal(s->nsites, 4);
	for (size_t i = 0; i < s->nsites; i++) {
		assert_null(strstr(s->sites[i].sym, ".part."));
		alpha += strcmp(s->sites[i].sym, "rs_t_alpha") == 0;
		assert_string_not_equal(s->sites[i].sym, "rs_t_alpha_alias");
	}
	assert_int_equal(alpha, 1);
	rs_sites_free(s);
}

static void test_resolve_host_path(void **state)
{
	struct rs_query q = { .target = tp("libtmoved.so"), .func = "rs_t_beta" };
	struct rs_sites *s;
	char err[1024];

	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	assert_int_equal(s->nsites, 1);
	assert_int_equal(s->sites[0].offset, true_offset(dlsym(h_moved, "rs_t_beta")));
	assert_true(s->sites[0].file->host);
	/* the scan found us mapping it */
	assert_true(has_pid(s->sites[0].file, getpid()));
	rs_sites_free(s);
}

static void test_resolve_deleted_and_spaces(void **state)
{
	struct rs_query q = { .target = "libtdel", .func = "rs_t_beta", .pid = getpid() };
	struct rs_sites *s;
	char err[1024];

	if (map_files_usable()) {
		assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
		assert_int_equal(s->nsites, 1);
		assert_true(s->sites[0].file->deleted);
		assert_string_equal(s->sites[0].file->path, tp("libtdel.so"));
		assert_int_equal(s->sites[0].offset, true_offset(dlsym(h_del, "rs_t_beta")));
		assert_int_equal(access(s->sites[0].file->attach_path, R_OK), 0);
		rs_sites_free(s);
	} else {
		/* the deleted file is skipped, not replaced by anything */
		assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOENT);
	}

	q.target = "libsp";
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	assert_int_equal(s->nsites, 1);
	assert_string_equal(s->sites[0].file->path, tp("dir with space/libsp.so"));
	assert_int_equal(s->sites[0].offset, true_offset(dlsym(h_sp, "rs_t_beta")));
	rs_sites_free(s);

	/* without -p the short name is found by scanning processes */
	q.pid = 0;
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	assert_int_equal(s->nsites, 1);
	assert_true(has_pid(s->sites[0].file, getpid()));
	rs_sites_free(s);
}

static void test_resolve_errors(void **state)
{
	struct rs_query q = { .target = "libt", .func = "rs_t_alpha", .pid = 0x3ffffff0 };
	struct rs_sites *s = (struct rs_sites *)1;
	char err[1024];

	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ESRCH);
	assert_null(s);
	assert_string_equal(err, "pid 1073741808 does not exist");

	q.pid = getpid();
	q.func = "nosuchfn";
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOENT);
	{
		char want[RS_PATH_MAX + 64];
		snprintf(want, sizeof(want), "symbol 'nosuchfn' not found in %s", tp("libt.so"));
		assert_string_equal(err, want);
	}

	q.target = "libnosuch_xyz";
	q.func = "f";
	q.pid = 0;
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no process maps a library named 'libnosuch_xyz'"));

	q.pid = getpid();
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "maps no library named 'libnosuch_xyz'"));

	q.target = "/nonexistent/libx.so";
	q.pid = 0;
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "uprobe target /nonexistent/libx.so does not exist");

	q.target = tp("text.so");
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -ENOEXEC);

	q.target = "*";
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -EINVAL);
	q.target = "";
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -EINVAL);
	q.target = "libt";
	q.func = "";
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), -EINVAL);
}

static void test_resolve_follow(void **state)
{
	struct rs_query q = { .target = "*", .func = "rs_t_call_static", .pid = getpid() };
	struct rs_sites *s;
	char err[1024];
	size_t before, first_new;
	void *h;

	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	before = s->nsites;
	assert_true(before >= 3);	/* libt, libtmoved, libsp, libtdel, libtpad */
	assert_int_equal(rs_resolve_more(&q, s, &first_new, err, sizeof(err)), 0);
	assert_int_equal(first_new, before);
	assert_int_equal(s->nsites, before);

	h = dlopen(tp("libtfollow.so"), RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	assert_int_equal(rs_resolve_more(&q, s, &first_new, err, sizeof(err)), 0);
	assert_int_equal(first_new, before);
	assert_int_equal(s->nsites, before + 1);
	assert_string_equal(s->sites[before].file->path, tp("libtfollow.so"));
	assert_int_equal(s->sites[before].offset,
			 true_offset(dlsym(h, "rs_t_call_static")));
	rs_sites_free(s);
	dlclose(h);
}

static void test_resolve_libc_live(void **state)
{
	struct rs_query q = { .target = "libc", .func = "gnu_get_libc_version" };
	struct rs_sites *s;
	char err[1024];
	bool host = false;

	/* every distinct libc mapped on this machine; ours among them */
	assert_int_equal(rs_resolve(&q, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < s->nsites; i++)
		if (has_pid(s->sites[i].file, getpid())) {
			host = true;
			assert_int_equal(s->sites[i].offset,
					 true_offset(dlsym(RTLD_DEFAULT, "gnu_get_libc_version")));
		}
	assert_true(host);
	rs_sites_free(s);
}

static void test_list(void **state)
{
	char *buf = NULL, want[4096], err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p = tp("libt.so");

	assert_int_equal(rs_list_probes(f, "uprobe", p, "rs_t_*", 0, err, sizeof(err)), 0);
	fclose(f);
	snprintf(want, sizeof(want),
		 "uprobe:%s:rs_t_alpha\nuprobe:%s:rs_t_alpha_alias\nuprobe:%s:rs_t_beta\n"
		 "uprobe:%s:rs_t_call_static\nuprobe:%s:rs_t_static\n", p, p, p, p, p);
	assert_string_equal(buf, want);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(rs_list_probes(f, "uretprobe", p, "*beta", 0, err, sizeof(err)), 0);
	fclose(f);
	snprintf(want, sizeof(want), "uretprobe:%s:rs_t_beta\n", p);
	assert_string_equal(buf, want);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(rs_list_probes(f, "uprobe", p, "zzz*", 0, err, sizeof(err)), 0);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);

	f = fopen("/dev/null", "w");
	assert_true(rs_list_probes(f, "uprobe", "/nonexistent", "*", 0, err, sizeof(err)) < 0);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_normal),
		cmocka_unit_test(test_maps_spaces),
		cmocka_unit_test(test_maps_deleted),
		cmocka_unit_test(test_maps_anon_and_pseudo),
		cmocka_unit_test(test_maps_malformed),
		cmocka_unit_test(test_maps_truncated),
		cmocka_unit_test(test_maps_huge),
		cmocka_unit_test(test_maps_each_self),
		cmocka_unit_test(test_libname),
		cmocka_unit_test(test_open_in_root),
		cmocka_unit_test(test_open_mapping_verifies),
		cmocka_unit_test(test_open_deleted_mapping),
		cmocka_unit_test(test_real_inode_overlay),
		cmocka_unit_test(test_elf_offsets),
		cmocka_unit_test(test_elf_padding_moves_symbol),
		cmocka_unit_test(test_elf_match_and_aliases),
		cmocka_unit_test(test_elf_bad_files),
		cmocka_unit_test(test_usym_self),
		cmocka_unit_test_setup(test_container_id_of, cg_setup),
		cmocka_unit_test_setup(test_container_find, cg_setup),
		cmocka_unit_test_setup(test_container_by_path, cg_setup),
		cmocka_unit_test_setup(test_container_pids, cg_setup),
		cmocka_unit_test_setup(test_cgcache, cg_setup),
		cmocka_unit_test(test_cgroup2_live),
		cmocka_unit_test(test_resolve_short_name_pid),
		cmocka_unit_test(test_resolve_glob_dedupes_aliases),
		cmocka_unit_test(test_resolve_host_path),
		cmocka_unit_test(test_resolve_deleted_and_spaces),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_resolve_follow),
		cmocka_unit_test(test_resolve_libc_live),
		cmocka_unit_test(test_list),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
