/*
 * procstate.h - one lifecycle for what sonde keeps per traced process.
 *
 * A process's mappings (to name its stack frames), and what other
 * readers keep per process (unwinding tables, an interpreter's state and
 * code objects), must be read while it lives and kept after it exits,
 * until the maps that hold its stacks have been printed, cleared or
 * scraped.  Each reader is a client: it captures its state when the
 * process is first seen and releases it when procstate says so.
 *
 *   first stack of pid (EV_PID_SEEN)   ps_capture: every client's capture
 *   a stack of pid is printed          ps_touch: in use this pass
 *   pid exec'd (EV_EXEC)               ps_exec; its next stack is a first one
 *                                      again: ps_capture, known, captures anew
 *   every map holding stacks read      ps_sweep: release the processes that
 *                                      are gone and were not printed
 *   more than max processes            the least recently used is released
 *                                      (counted: evicted)
 *
 * A process is "gone" when /proc no longer has it, or has another one of
 * that pid (start time).
 */
#ifndef SONDE_RUNTIME_PROCSTATE_H
#define SONDE_RUNTIME_PROCSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_MAX_DEFAULT 4096	/* processes kept at most (SONDE_PROCSTATE_MAX) */
#define PS_CLIENTS_MAX 4

struct procstate;
struct ps_client {
	const char *name;
	/* read what the client needs while pid lives; *slot is the client's
	 * (NULL at first).  0 or -errno (the process is still kept) */
	int (*capture)(void *ctx, int pid, void **slot);
	/* drop it: the process is gone, exec'd, or evicted */
	void (*release)(void *ctx, int pid, void *slot);
	void *ctx;
};

struct ps_stats {
	size_t live;		/* processes kept now */
	uint64_t captured;	/* processes captured so far */
	uint64_t released;	/* released because gone or exec'd */
	uint64_t evicted;	/* released because more than max were kept */
};

struct procstate *ps_new(size_t max);
void ps_free(struct procstate *ps);	/* releases every process */
/* the client's index, or -ENOSPC */
int ps_register(struct procstate *ps, const struct ps_client *cl);
/* 1: pid is new, 0: known.  A known process's clients capture it again
 * only when ps_exec said it exec'd since: a second first look at the same
 * program (the -p process read at start, then at its first stack) keeps
 * what was read, which stacks taken meanwhile are walked with.  -errno */
int ps_capture(struct procstate *ps, int pid);
/* pid exec'd: another program's mappings and interpreter from now on */
void ps_exec(struct procstate *ps, int pid);
/* the client's slot for pid (NULL when none or unknown); touches pid */
void *ps_get(struct procstate *ps, int pid, int client);
void ps_touch(struct procstate *ps, int pid);
void ps_release(struct procstate *ps, int pid);
/* release what is gone and was not touched since the last sweep; the count */
size_t ps_sweep(struct procstate *ps);
void ps_stats(const struct procstate *ps, struct ps_stats *out);

#endif
