/*
 * format.h - printf() format strings: checked at compile time, applied in
 * userspace to the arguments a BPF program sent through the ring buffer.
 *
 * Conversions follow bpftrace: %d %i %u %x %X %o %c %s %p %%, %gr (a gfp_t's
 * flags by name, as the newest release), flags - 0 +
 * space #, width, precision, length modifiers h hh l ll z j t (accepted and
 * ignored: every integer argument is a full 64-bit value; %d, %u, %x print
 * all 64 bits, unlike bpftrace 0.17 which truncates to 32).  Escape
 * sequences in the literal text (\n \t \\ \" \NNN octal) are already decoded
 * by the lexer.
 */
#ifndef SONDE_FORMAT_H
#define SONDE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

enum fmt_arg_kind {
	FMT_INT,	/* %d %i: signed 64-bit */
	FMT_UINT,	/* %u %x %X %o %c %p %gr: unsigned 64-bit */
	FMT_STR,	/* %s: any printable value; %r: a buf() */
};

struct fmt_conv {
	enum fmt_arg_kind kind;
	char conv;		/* 'd', 'u', 'x', 's' ... */
	const char *spec;	/* the whole "%-08llx" text, for messages */
	int offset;		/* byte offset of '%' in the format string */
	int length;		/* length of the spec */
	char rmode;		/* %r: 0; %rx: 'x' (all bytes \xNN); %rh: 'h' (hex, spaced) */
};

struct fmt_spec {
	struct fmt_conv *convs;
	int nconvs;
};

/*
 * Parse `fmt`.  Returns 0, or -EINVAL with a message in *err (arena
 * allocated) and the offending byte offset in *err_off, for an unknown
 * conversion or a truncated spec.
 */
int fmt_parse(struct arena *a, const char *fmt, struct fmt_spec *out,
	      const char **err, int *err_off);

/* One argument value as the runtime decoded it. */
struct fmt_val {
	enum fmt_arg_kind kind;	/* FMT_INT/FMT_UINT: i; FMT_STR: s */
	bool int32;		/* a value of 32 bits or fewer: %d %u %x without %l
				 * print its low 32 bits, as C's int (and bpftrace) */
	union {
		int64_t i;
		const char *s;
	};
};

/*
 * Format into a malloc'd NUL-terminated buffer (*len excludes the NUL).
 * An integer given to %s prints as decimal; a string given to %d prints 0
 * (sema rejects both, this is only defence).  Returns NULL on OOM.
 */
char *fmt_format(const char *fmt, const struct fmt_spec *spec,
		 const struct fmt_val *vals, int nvals, size_t *len);

/*
 * The same into *buf, a malloc'd block of *cap bytes that the caller keeps
 * from one call to the next (both start NULL/0; free(*buf) at the end): it
 * grows when a result needs more, so formatting event after event
 * allocates nothing once it has grown.  Returns *buf, or NULL on OOM.
 */
char *fmt_format_into(char **buf, size_t *cap, const char *fmt, const struct fmt_spec *spec,
		      const struct fmt_val *vals, int nvals, size_t *len);

#endif
