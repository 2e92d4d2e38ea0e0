/*
 * import.c - `import "PATH";`: the files a script imports, read and
 * spliced into its text.
 *
 * An import names a file or a directory, relative to the directory of the
 * script that writes it (the current directory for -e and stdin), as the
 * newest bpftrace resolves it:
 *   - NAME.bt, a script: its probes, macros, map declarations and C
 *     definitions join the importer's; it may import in turn, and has no
 *     config block;
 *   - NAME.h, a header: its struct, union and enum definitions (and
 *     #defines), nothing else;
 *   - NAME.bpf.c, BPF C: compiled and linked by codegen/cimport.c, its
 *     functions callable from the script; listed on program.cimports;
 *   - a directory: the files of those kinds in it (not its
 *     subdirectories), in name order;
 *   - "stdlib/NAME" found nowhere on disk: a module of sonde's own stdlib
 *     (codegen/cimport.c has them, and says when there is none).
 * A file is imported once however many imports name it (by its real
 * path); one that imports a file it is being imported from is a cycle,
 * an error.  A file or directory that anyone may write (or whose
 * directory anyone may write) is refused, as bpftrace does: the script
 * would run what another user put there.
 *
 * Each script or header is first parsed alone (its own diag: errors name
 * its file and lines) to find its imports.  Then one text is made: every
 * file imported (a file's own imports before it), each after a line
 * `#line 1 "FILE"`, then `#line 1 "SCRIPT"` and the script.  So imported
 * probes come before the script's own, as bpftrace orders them, and
 * headers' struct definitions before the probes that use them.  That text
 * is parsed again as one program (its import statements are passed over:
 * they were read; a config block after imported probes is the script's): line numbers in the AST count lines of it,
 * and diag.c maps them back through the markers to the file and line an
 * error is in.  LLVM's line info quotes the same text, so a verifier
 * error in an imported probe shows the imported line.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "parser/parse_impl.h"

enum { IMP_MAX_FILES = 256, IMP_MAX_DEPTH = 32 };

enum imp_kind { IMP_BT, IMP_H, IMP_C, IMP_UNKNOWN };

/* a script or header read, in the order the text lays them out */
struct imp_seg {
	struct imp_seg *next;
	const char *shown;	/* the path as messages name it */
	char *text;		/* its text */
	int first_line;		/* where its first line is in the spliced text */
};

/* a C import waiting for its location in the spliced text */
struct imp_cfile {
	struct imp_cfile *next;
	struct ast_cimport *ci;
	struct imp_seg *seg;	/* the script importing it; NULL: the root */
};

struct imp_state {
	struct arena *a;
	const char *stack[IMP_MAX_DEPTH + 1];	/* real paths being imported */
	const char *stack_shown[IMP_MAX_DEPTH + 1];
	int depth;
	const char *seen[IMP_MAX_FILES];	/* real paths imported */
	int nseen;
	struct imp_seg *segs, **segs_tail;
	struct imp_cfile *cfiles, **cfiles_tail;
	bool failed;
};

static enum imp_kind kind_of(const char *path)
{
	size_t n = strlen(path);
#define ENDS(s) (n > sizeof(s) - 1 && !strcmp(path + n - (sizeof(s) - 1), s))
	if (ENDS(".bt"))
		return IMP_BT;
	if (ENDS(".bpf.c"))
		return IMP_C;
	if (ENDS(".h"))
		return IMP_H;
#undef ENDS
	return IMP_UNKNOWN;
}

static void imp_error(struct imp_state *st, struct diag *d, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void imp_error(struct imp_state *st, struct diag *d, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, loc, fmt, ap);
	va_end(ap);
	st->failed = true;
}

/* dir/name, or name alone when it is absolute or dir is "." */
static const char *join(struct arena *a, const char *dir, const char *name)
{
	if (name[0] == '/' || !strcmp(dir, "."))
		return arena_strdup(a, name);
	return arena_printf(a, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

static const char *dir_of(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return arena_strndup(a, path, (size_t)(slash - path));
}

/* the path, or its directory, writable by anyone: the name of which */
static const char *world_writable(struct arena *a, const char *path)
{
	struct stat sb;
	if (!stat(path, &sb) && (sb.st_mode & S_IWOTH))
		return path;
	const char *dir = dir_of(a, path);
	if (!stat(dir, &sb) && (sb.st_mode & S_IWOTH))
		return dir;
	return NULL;
}

static bool import_path(struct imp_state *st, struct diag *d, const struct parse_import *im,
			const char *path, bool in_dir, struct imp_seg *importer);

/* a C import (a file, or a module of sonde's stdlib) of importer's, in
 * the order met */
static struct ast_cimport *add_cfile(struct imp_state *st, const struct parse_import *im,
				     struct imp_seg *importer)
{
	struct imp_cfile *cf = arena_new_obj(st->a, struct imp_cfile);
	cf->ci = arena_new_obj(st->a, struct ast_cimport);
	cf->ci->loc = im->path_loc;
	cf->seg = importer;
	*st->cfiles_tail = cf;
	st->cfiles_tail = &cf->next;
	return cf->ci;
}

/* A script or header: parsed alone for its imports (which come first in
 * the text), then laid out. */
static void import_text(struct imp_state *st, struct diag *d, const struct parse_import *im,
			const char *path, const char *real, enum imp_kind kind)
{
	char *text;
	int err = file_read_all(path, 0, &text, NULL);
	if (err) {
		imp_error(st, d, im->path_loc, "import \"%s\": cannot read %s: %s", im->path, path,
			  strerror(-err));
		return;
	}
	char *own = arena_strdup(st->a, text);
	free(text);
	/* a #! line is a comment only as the first line of the text */
	if (own[0] == '#' && own[1] == '!')
		for (char *p = own; *p && *p != '\n'; p++)
			*p = ' ';
	struct diag fd;
	diag_init(&fd, path, own, d->out);
	struct parse_ctx px = {.arena = st->a, .diag = &fd};
	if (!parse_grammar(&px, own)) {
		d->errors += fd.errors;
		st->failed = true;
		return;
	}
	if (px.have_config)
		imp_error(st, &fd, px.root->program.config ? px.root->program.config->loc : px.root->loc,
			  "an imported script has no config block: only the script sonde runs sets "
			  "the config");
	if (kind == IMP_H) {
		const char *what = px.body_seen ? px.body_seen : px.imports ? "an import" : NULL;
		if (what)
			imp_error(st, &fd, px.root->loc, "a header (.h) brings C definitions only, and "
				  "%s has %s: give it a .bt name to import it as a script", path, what);
	}
	if (st->failed) {
		d->errors += fd.errors;
		return;
	}
	struct imp_seg *seg = arena_new_obj(st->a, struct imp_seg);
	seg->shown = path;
	st->stack[st->depth] = real;
	st->stack_shown[st->depth++] = path;
	const char *dir = dir_of(st->a, path);
	for (const struct parse_import *sub = px.imports; sub && !st->failed; sub = sub->next)
		import_path(st, &fd, sub, join(st->a, dir, sub->path), false, seg);
	st->depth--;
	d->errors += fd.errors;
	seg->text = own;
	*st->segs_tail = seg;
	st->segs_tail = &seg->next;
}

/* the cycle, as "a.bt imports b.bt, which imports a.bt" */
static const char *cycle_text(struct imp_state *st, int from, const char *again)
{
	const char *s = st->stack_shown[from];
	for (int i = from + 1; i < st->depth; i++)
		s = arena_printf(st->a, "%s imports %s, which", s, st->stack_shown[i]);
	return arena_printf(st->a, "%s imports %s", s, again);
}

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* a directory: its .bt, .h and .bpf.c files, in name order */
static void import_dir(struct imp_state *st, struct diag *d, const struct parse_import *im,
		       const char *path, struct imp_seg *importer)
{
	DIR *dir = opendir(path);
	if (!dir) {
		imp_error(st, d, im->path_loc, "import \"%s\": cannot read the directory %s: %s",
			  im->path, path, strerror(errno));
		return;
	}
	const char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(dir));) {
		if (e->d_name[0] == '.' || kind_of(e->d_name) == IMP_UNKNOWN)
			continue;
		names = arena_grow(st->a, names, n, sizeof(*names));
		names[n++] = arena_strdup(st->a, e->d_name);
	}
	closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && !st->failed; i++)
		import_path(st, d, im, join(st->a, path, names[i]), true, importer);
}

/* One path an import names (in_dir: a file of an imported directory,
 * whose subdirectories and other files are passed over).  False when
 * nothing is there. */
static bool import_path(struct imp_state *st, struct diag *d, const struct parse_import *im,
			const char *path, bool in_dir, struct imp_seg *importer)
{
	struct stat sb;
	if (stat(path, &sb))
		return false;
	if (in_dir && !S_ISREG(sb.st_mode))
		return true;
	const char *ww = world_writable(st->a, path);
	if (ww) {
		imp_error(st, d, im->path_loc, "import \"%s\": cowardly refusing to import from a "
			  "directory with global write permissions: %s (anyone may put a file there; "
			  "chmod o-w %s)", im->path, path, ww);
		return true;
	}
	char realbuf[PATH_MAX];
	const char *real = realpath(path, realbuf) ? arena_strdup(st->a, realbuf) : path;
	for (int i = 0; i < st->depth; i++)
		if (!strcmp(st->stack[i], real)) {
			imp_error(st, d, im->path_loc, "import \"%s\": an import cycle: %s", im->path,
				  cycle_text(st, i, path));
			return true;
		}
	for (int i = 0; i < st->nseen; i++)
		if (!strcmp(st->seen[i], real))
			return true;	/* imported already: once is enough */
	if (S_ISDIR(sb.st_mode)) {
		import_dir(st, d, im, path, importer);
		return true;
	}
	enum imp_kind kind = kind_of(path);
	if (kind != IMP_UNKNOWN && !S_ISREG(sb.st_mode)) {
		imp_error(st, d, im->path_loc, "import \"%s\": %s is not a regular file", im->path, path);
		return true;
	}
	if (kind == IMP_UNKNOWN) {
		const char *base = strrchr(path, '/');
		imp_error(st, d, im->path_loc, "import \"%s\": unknown kind of file '%s': sonde imports "
			  ".bt scripts, .h headers, .bpf.c BPF C and directories of them", im->path,
			  base ? base + 1 : path);
		return true;
	}
	if (st->nseen == IMP_MAX_FILES) {
		imp_error(st, d, im->path_loc, "import \"%s\": more than %d files imported", im->path,
			  IMP_MAX_FILES);
		return true;
	}
	if (st->depth == IMP_MAX_DEPTH) {
		imp_error(st, d, im->path_loc, "import \"%s\": imports nested deeper than %d files",
			  im->path, IMP_MAX_DEPTH);
		return true;
	}
	st->seen[st->nseen++] = real;
	if (kind == IMP_C) {
		add_cfile(st, im, importer)->path = path;
		return true;
	}
	import_text(st, d, im, path, real, kind);
	return true;
}

/* one import statement of a script */
static void import_one(struct imp_state *st, struct diag *d, const struct parse_import *im,
		       const char *dir, struct imp_seg *importer)
{
	const char *path = join(st->a, dir, im->path);
	if (import_path(st, d, im, path, false, importer))
		return;
	if (!strcmp(im->path, "stdlib") || !strncmp(im->path, "stdlib/", 7)) {
		/* sonde's own module: codegen/cimport.c knows them */
		struct ast_cimport *ci = add_cfile(st, im, importer);
		ci->module = im->path;
		ci->tried = path;
		return;
	}
	imp_error(st, d, im->path_loc, "import \"%s\": no such file or directory: %s (an import is "
		  "looked for beside the script that imports it%s)", im->path, path,
		  importer ? "" : "; for -e and stdin, in the current directory");
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct ast_node *parse_imports(struct parse_ctx *px, const char **src)
{
	struct diag *d = px->diag;
	struct imp_state st = {.a = px->arena};
	st.segs_tail = &st.segs;
	st.cfiles_tail = &st.cfiles;
	bool from_file = d->file && strcmp(d->file, "stdin");
	const char *dir = from_file ? dir_of(px->arena, d->file) : ".";
	char realbuf[PATH_MAX];
	if (from_file && realpath(d->file, realbuf)) {
		st.stack[0] = arena_strdup(px->arena, realbuf);
		st.stack_shown[0] = d->file;
		st.depth = 1;
	}
	for (const struct parse_import *im = px->imports; im && !st.failed; im = im->next)
		import_one(&st, d, im, dir, NULL);
	if (st.failed)
		return NULL;

	/* the files, then the script */
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	if (!f) {
		diag_error(d, px->imports->loc, "import: out of memory");
		return NULL;
	}
	int lines = 0;
	for (struct imp_seg *s = st.segs; s; s = s->next) {
		fprintf(f, "#line 1 \"%s\"\n", s->shown);
		s->first_line = lines + 2;
		size_t n = strlen(s->text);
		fputs(s->text, f);
		lines += 1 + count_lines(s->text);
		if (n && s->text[n - 1] != '\n') {
			fputc('\n', f);
			lines++;
		}
	}
	struct imp_seg root = {.first_line = lines + 2};
	fprintf(f, "#line 1 \"%s\"\n", d->file);
	const char *rest = *src;
	if (rest[0] == '#' && rest[1] == '!') {	/* a comment on line 1 only */
		const char *nl = strchr(rest, '\n');
		rest = nl ? nl : "";
	}
	fputs(rest, f);
	fclose(f);
	const char *text = arena_strdup(px->arena, buf ? buf : "");
	free(buf);

	/* C imports, located in the spliced text */
	struct ast_cimport *cis = NULL, **tail = &cis;
	for (struct imp_cfile *cf = st.cfiles; cf; cf = cf->next) {
		int shift = (cf->seg ? cf->seg : &root)->first_line - 1;
		cf->ci->loc.line += shift;
		cf->ci->loc.end_line += shift;
		cf->ci->loc.file = NULL;
		*tail = cf->ci;
		tail = &cf->ci->next;
	}

	*src = text;
	d->src = text;
	struct parse_ctx again = {.arena = px->arena, .diag = d, .combined = true};
	if (!parse_grammar(&again, text))
		return NULL;
	again.root->program.cimports = cis;
	again.root->program.newer = true;
	return again.root;
}
