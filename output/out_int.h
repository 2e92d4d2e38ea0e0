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
/* n limited to [0, PR_HIST_BUCKETS] */
int pr_clamp_hist_n(int n);
/* min + i * step, saturating */
int64_t pr_lhist_bound(int64_t min, int64_t step, int i);
/* total / count, as bpftrace (integer division) */
int64_t pr_entry_average(const struct pr_entry *e);
/* length of the well-formed UTF-8 sequence at s (at most n bytes), 0 if
 * the bytes there are not one (RFC 3629: no overlongs, no surrogates) */
size_t pr_utf8_seq_len(const unsigned char *s, size_t n);
/* key elements actually there */
int pr_entry_nkey(const struct pr_entry *e);

#endif
