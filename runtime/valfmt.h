/*
 * valfmt.h - pure text forms of the values that need userspace work to
 * print: buf() bytes, ntop() addresses, strftime() timestamps and stacks.
 *
 * No BPF and no /proc here: symbols arrive already resolved, so these are
 * golden-tested without root.  Output is byte-compatible with bpftrace
 * 0.17.  Results live in the arena a.
 */
#ifndef SONDE_VALFMT_H
#define SONDE_VALFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct arena;

/* buf(): printable ASCII (32..126) as itself, every other byte as \xNN */
const char *vf_buf(struct arena *a, const uint8_t *p, size_t n);

/* ntop(): af 2 (AF_INET) reads addr[0..4), 10 (AF_INET6) addr[0..16);
 * any other family gives "" */
const char *vf_inet(struct arena *a, uint64_t af, const uint8_t *addr);

/* strftime(fmt, t) in local time (utc: UTC), with bpftrace's %f: the
 * microseconds of t, six digits.  "" when the result is empty or longer
 * than 1023 bytes. */
const char *vf_strftime(struct arena *a, const char *fmt, const struct timespec *t, bool utc);

/* Monotonic nanoseconds (bpf_ktime_get_ns, `nsecs`) to wall-clock time,
 * given one reading of both clocks. */
struct timespec vf_mono_to_wall(uint64_t mono_ns, const struct timespec *now_real,
				const struct timespec *now_mono);

enum vf_stack_mode { VF_STACK_BPFTRACE, VF_STACK_PERF, VF_STACK_RAW };

struct vf_frame {
	uint64_t addr;
	const char *sym;	/* NULL: unresolved */
	uint64_t off;		/* addr - symbol start */
	const char *module;	/* user frames: the mapped file ("[unknown]" if NULL) */
};

/* A stack as bpftrace prints it: "\n", then one line per frame:
 *   bpftrace: indent spaces, "sym+off" (or 0x<addr>)
 *   perf:     "\t<hexaddr> sym+off" plus " (module)" for user stacks
 *   raw:      "<hexaddr>"
 * n == 0 gives "" (bpftrace prints a stack it could not read as nothing). */
const char *vf_stack(struct arena *a, const struct vf_frame *f, int n, enum vf_stack_mode mode,
		     int indent, bool user);

#endif
