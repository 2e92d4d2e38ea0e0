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
/* the file's libdwfl session (dwline.c), NULL when it has no DWARF */
void *hdw_file_dwfl(struct hdw_file *f);

#endif
