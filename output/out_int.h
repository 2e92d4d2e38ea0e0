/*
 * out_int.h - what the writers of output/ share (not a public header).
 */
#ifndef SONDE_OUT_INT_H
#define SONDE_OUT_INT_H

#include "output/output.h"

/* Sort m's entries for printing and apply bpftrace's rules for top and div
 * (stats ignore both, lhist ignores div, div 0 is 1); the index of the
 * first entry to print. */
size_t pr_map_order(struct pr_map *m, uint32_t *top, uint32_t *div);

/* first and last non-zero bucket and the largest count; false if all zero */
bool pr_bucket_range(const uint64_t *b, int n, int *first, int *last, uint64_t *max);
/* n limited to [0, PR_HIST_MAX_BUCKETS] */
int pr_clamp_hist_n(int n);
/* min + i * step, saturating */
int64_t pr_lhist_bound(int64_t min, int64_t step, int i);
/* total / count, as bpftrace (integer division) */
int64_t pr_entry_average(const struct pr_entry *e);
/* an integer or average entry's value divided by div, as text and JSON
 * print it alike; false (nothing printed) for the other kinds */
bool pr_number_value(FILE *out, const struct pr_map *m, const struct pr_entry *e, uint32_t div);
/* length of the well-formed UTF-8 sequence at s (at most n bytes), 0 if
 * the bytes there are not one (RFC 3629: no overlongs, no surrogates) */
size_t pr_utf8_seq_len(const unsigned char *s, size_t n);
/* key elements actually there */
int pr_entry_nkey(const struct pr_entry *e);

/* text.c's hooks, for the formats that write text beside their own output */
void pr_text_attached(FILE *out, FILE *diag, int nprobes);
void pr_text_message(FILE *out, const char *type, const char *text, size_t len);
void pr_text_value(FILE *out, const char *rendered);
void pr_text_join(FILE *out, const char *text, size_t len);
void pr_text_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div);
void pr_text_lost_events(FILE *out, FILE *diag, uint64_t lost);
void pr_text_maps_begin(FILE *out);
void pr_text_benchmark(FILE *out, const char *const *names, int n, int index, bool first,
		       uint64_t avg_ns, uint64_t iters);
/* a writer's event hooks as text.c's (the formats whose events print as text) */
#define PR_TEXT_EVENTS                                                                         \
	.attached = pr_text_attached, .message = pr_text_message, .value = pr_text_value,      \
	.join = pr_text_join, .lost_events = pr_text_lost_events
void pr_nothing_before_maps(FILE *out);
/* realloc and strdup that abort when memory runs out, as the arena does */
void *pr_xrealloc(void *p, size_t n);
char *pr_xstrdup(const char *s);
/* s as XML/HTML text (entities for & < > ", "?" for control bytes) */
void pr_xml_text(FILE *out, const char *s);

/* folded.c: a stack entry's path for the stack pictures, root first: the
 * key parts that are not stacks (PF_KEY), the user stacks, the kernel
 * stacks; names by function (use_func) or by line as printed.  false when
 * the key holds no stack.  The arrays are malloc'd (pr_path_free). */
enum pr_frame_kind { PF_KEY, PF_USER, PF_KERNEL };
struct pr_path {
	const char **name;
	enum pr_frame_kind *kind;
	const struct pr_frame **frame;	/* a stack's frame, NULL for a key part */
	int n, cap;
};
bool pr_stack_path(const struct pr_entry *e, bool use_func, struct pr_path *p);
void pr_path_free(struct pr_path *p);

#endif
