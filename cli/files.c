/*
 * files.c - the files the command line opens on the user's behalf: the
 * recipe a bare name stands for, the program text (-e, a file, stdin or a
 * recipe), and the -o output file.
 *
 * sonde runs as root, so both are places where another user could plant
 * something.  A bare name ("runqlat") is only ever an installed recipe,
 * never a file of the current directory, as a shell never runs ./ls for
 * `ls`: a file there needs a path ("./runqlat") or its extension
 * ("runqlat.bt"), which says the user meant a file.  The output file is
 * created 0600, and in a world-writable sticky directory such as /tmp a
 * final symlink or a file that someone else owns is refused rather than
 * followed or written.  docs/security.md describes both for users.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"

/* a name that says "a file": a path, or a name with an extension */
bool cli_names_file(const char *arg)
{
	return strchr(arg, '/') || strchr(arg, '.');
}

/* The installed recipe NAME: $SONDE_SCRIPTS, the scripts/ next to the
 * binary (a build tree), then the install directory. */
const char *cli_find_recipe(const char *name, char *buf, size_t len)
{
	if (!*name || cli_names_file(name))
		return NULL;
	struct stat st;
	const char *env = getenv("SONDE_SCRIPTS");
	if (env && *env) {
		snprintf(buf, len, "%s/%s.sonde", env, name);
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/../scripts/%s.sonde", exe, name);
			if (!stat(buf, &st) && S_ISREG(st.st_mode))
				return buf;
		}
	}
	snprintf(buf, len, "%s/%s.sonde", CLI_SCRIPT_DIR, name);
	if (!stat(buf, &st) && S_ISREG(st.st_mode))
		return buf;
	return NULL;
}

/* the directory part of path ("." for a bare name) */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* The -o stream writes through here so that the first write error's errno
 * is kept for the message at exit: stdio reports only that one happened. */
struct out_cookie {
	int fd;
	int err;
};

static ssize_t out_write(void *c, const char *buf, size_t n)
{
	struct out_cookie *oc = c;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(oc->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!oc->err)
				oc->err = w < 0 ? errno : EIO;
			errno = oc->err;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int out_close(void *c)
{
	struct out_cookie *oc = c;
	int rc = close(oc->fd);
	if (rc && !oc->err)
		oc->err = errno;
	rc = oc->err ? -1 : 0;
	errno = oc->err;
	free(oc);
	return rc;
}

int cli_open_output(const char *path, FILE **out, char *err, size_t errlen)
{
	char dir[4096];
	struct stat ds;
	dir_of(path, dir, sizeof(dir));
	/* /tmp and its kind: anyone may have put the name there first */
	bool shared = !stat(dir, &ds) && (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH);
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (shared ? O_NOFOLLOW : 0);
	int fd = open(path, flags, 0600);
	if (fd < 0) {
		if (errno == ELOOP && shared)
			snprintf(err, errlen, "-o %s: a symbolic link in the world-writable "
				 "directory %s: not following it (give the real path)", path, dir);
		else
			snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	struct stat fs;
	if (fstat(fd, &fs)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (shared && S_ISREG(fs.st_mode) && fs.st_uid != geteuid()) {
		snprintf(err, errlen, "-o %s: the file belongs to uid %u in the world-writable "
			 "directory %s: not writing to it", path, (unsigned)fs.st_uid, dir);
		close(fd);
		return -1;
	}
	/* truncate only once we know whose file it is */
	if (S_ISREG(fs.st_mode) && ftruncate(fd, 0)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	struct out_cookie *oc = calloc(1, sizeof(*oc));
	*out = oc ? fopencookie(oc, "w", (cookie_io_functions_t){.write = out_write,
								 .close = out_close})
		  : NULL;
	if (!*out) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		free(oc);
		close(fd);
		return -1;
	}
	oc->fd = fd;
	return 0;
}

int cli_close_output(FILE *f, const char *name)
{
	/* buffered output fails at a flush: ENOSPC on a full disk, EPIPE; an
	 * earlier failed flush left only the error flag behind */
	errno = 0;
	int bad = fflush(f) != 0;
	int e = errno;
	bad |= ferror(f);
	if (f != stdout) {
		errno = 0;
		if (fclose(f)) {	/* out_close: the first write error */
			bad = 1;
			e = errno ? errno : e;
		}
	}
	if (!bad)
		return 0;
	if (e)
		fprintf(stderr, "sonde: writing %s: %s\n", name, strerror(e));
	else
		fprintf(stderr, "sonde: writing %s failed: output was lost\n", name);
	return -1;
}

static char *read_file(const char *path)
{
	char *buf;
	int err = file_read_all(path, 0, &buf, NULL);
	if (err) {
		errno = -err;
		return NULL;
	}
	return buf;
}

int cli_read_program(struct cli_args *o, const char **file, char **owned)
{
	*file = "stdin";
	*owned = NULL;
	if (o->prog_text)
		return 0;
	if (o->next >= o->argc) {
		cli_usage(stderr);
		return -1;
	}
	const char *f = *file = o->argv[o->next++];
	char recipe[4096];
	if (!strcmp(f, "-")) {
		*file = "stdin";
		if (!(*owned = read_file("/dev/stdin"))) {
			fprintf(stderr, "sonde: cannot read the program from stdin: %s\n", strerror(errno));
			return -1;
		}
	} else if (cli_names_file(f)) {
		if (!(*owned = read_file(f))) {
			fprintf(stderr, "sonde: cannot read '%s': %s\n", f, strerror(errno));
			return -1;
		}
	} else {
		/* a bare name is an installed recipe, never ./NAME */
		const char *r = cli_find_recipe(f, recipe, sizeof(recipe));
		if (!r || !(*owned = read_file(r))) {
			struct stat st;
			if (r)
				fprintf(stderr, "sonde: cannot read recipe '%s': %s\n", r, strerror(errno));
			else if (!stat(f, &st))
				fprintf(stderr, "sonde: '%s' is not an installed recipe; to run the file "
					"of that name here, give its path: sonde ./%s\n", f, f);
			else
				fprintf(stderr, "sonde: no recipe '%s' in %s (a script file needs its "
					"path or extension)\n", f, CLI_SCRIPT_DIR);
			return -1;
		}
	}
	o->prog_text = *owned;
	return 0;
}
