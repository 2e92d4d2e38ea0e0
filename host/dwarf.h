/*
 * dwarf.h - a binary's DWARF (dwarf.c).
 */
#ifndef SONDE_HOST_DWARF_H
#define SONDE_HOST_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/* A type as a binary's DWARF describes it, typedefs and qualifiers
 * looked through.  The types a function reaches form a graph (a struct
 * pointing to itself is a cycle); each lives as long as its file. */
enum hdw_kind {
	HDW_VOID, HDW_INT, HDW_FLOAT, HDW_PTR, HDW_ARRAY, HDW_STRUCT, HDW_UNION, HDW_ENUM,
	HDW_FUNC, HDW_OTHER,
};

struct hdw_member;

struct hdw_type {
	enum hdw_kind kind;
	const char *name;	/* struct/union/enum tag, base type name; NULL: anonymous */
	uint64_t size;		/* bytes */
	bool is_signed, is_bool;	/* INT, ENUM */
	const struct hdw_type *elem;	/* PTR (VOID for void *), ARRAY */
	uint64_t count;		/* ARRAY: elements (0: unknown); int a[2][3] is an
				 * ARRAY of 2 ARRAYs of 3 */
	struct hdw_member *members;	/* STRUCT, UNION, in order */
	int nmembers;
	bool declared_only;	/* STRUCT, UNION: no unit defines it */
	const char **enum_names;	/* ENUM: its enumerators */
	uint64_t *enum_values;
	int nenum;
};

struct hdw_member {
	const char *name;	/* NULL: an anonymous struct or union */
	uint64_t offset;	/* bytes */
	uint8_t bit_off, bit_size;	/* bitfields: bits from offset (little endian) */
	const struct hdw_type *type;
};

struct hdw_param {
	const char *name;	/* NULL when DWARF gives none */
	const char *ctype;	/* its type as bpftrace -lv prints it: "const char*" */
	const struct hdw_type *type;
};

struct hdw_func {
	const char *name;
	struct hdw_param *params;
	int nparams;
	bool varargs;		/* ends in "..." */
	const struct hdw_type *ret;	/* VOID for void */
};

/* libdwfl's default search path for separate debug files: the binary's
 * directory, its .debug subdirectory, /usr/lib/debug (each by
 * .gnu_debuglink name, or BINARY.debug, checked by build-id; and
 * /usr/lib/debug/.build-id/xx/rest.debug) */
#define HDW_DEFAULT_DEBUGINFO ":.debug:/usr/lib/debug"
/* --debuginfo DIR (repeatable, or DIR:DIR): these directories are searched
 * first, then the default ones; a relative DIR is under the binary's own
 * directory.  Before any hdw_open.  0 or -ENOMEM. */
int hdw_set_debuginfo_path(const char *const *dirs, int n);
/* the search path in force, as libdwfl takes it */
const char *hdw_debuginfo_path(void);

struct hdw_file;
/* The DWARF of the ELF file at path (in the file or a separate debug
 * file libdwfl finds: build-id, .gnu_debuglink), opened once and kept.
 * 0; -ENOENT when there is none (err says to build with -g or install
 * debug info), -ENOSYS when libdw cannot be loaded, -EINVAL unreadable. */
int hdw_open(const char *path, struct hdw_file **out, char *err, size_t errlen);
/* The function DWARF defines under name (or C++ linkage name), NULL when
 * none does. */
const struct hdw_func *hdw_func(struct hdw_file *f, const char *name);
/* The struct (or union) called name that some unit defines, NULL when none
 * does (a cast in a uprobe: `(struct node *)arg0`). */
const struct hdw_type *hdw_struct_named(struct hdw_file *f, bool is_union, const char *name);
/* -lv: "    TYPE NAME" per parameter, as bpftrace prints them */
void hdw_print_params(const struct hdw_func *fn, FILE *out);

/* One source frame of an address (config show_debug_info): name the
 * inlined function (NULL for the function the address lies in), file the
 * source file as DWARF names it ("" when unknown), line its line there. */
struct hdw_srcframe {
	const char *name;
	const char *file;
	unsigned line;
};
/* The source frames of vaddr (the ELF file's own address) in the file at
 * path, innermost first: each inlined function at the line it was at,
 * then the function itself at the line that called the outermost inline
 * (or vaddr's own line).  Up to max frames (16 at most), the count; 0
 * when the file has no DWARF (or no line for vaddr).  Each (path, vaddr)
 * is looked up once; the strings live as long as sonde. */
int hdw_srcframes(const char *path, uint64_t vaddr, struct hdw_srcframe *out, int max);
/* A source line's address (uprobe:BIN@FILE:LINE[:COL]): the first row of
 * the line table (in address order) for line `line` (and column col, 0:
 * any) of the source file src, in the first unit whose file table names a
 * file whose path ends with src's components ("uprobe_test.c",
 * "src/main.c"), rows of files it includes left out, as the newest
 * bpftrace finds it.  *vaddr is the ELF file's own address.  0; -ENOENT
 * (no unit names such a file, or the line has no code), -EINVAL (src
 * matches two different files), -ENOSYS (no libdw), with err saying so. */
int hdw_line_addr(const char *path, const char *src, unsigned line, unsigned col, uint64_t *vaddr,
		  char *err, size_t errlen);
/* Does path end with the path components of suffix (a leading "./" of
 * suffix left out)?  "/a/src/x.c" ends with "x.c" and "src/x.c", not with
 * "c/x.c". */
bool hdw_path_ends_with(const char *path, const char *suffix);
/* Why split DWARF of the file is incomplete: "the split DWARF of PATH
 * (FILE.dwo, or PATH.dwp) cannot be found" for its first skeleton unit
 * whose split unit libdw did not find, NULL when none is missing */
const char *hdw_split_missing(struct hdw_file *f);
/* the file's libdwfl session (dwline.c), NULL when it has no DWARF */
void *hdw_file_dwfl(struct hdw_file *f);

#endif
