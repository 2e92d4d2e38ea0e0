/*
 * print.h - pure printers for map contents and printf, text and JSON.
 *
 * Readers (runtime/maps.c) decode BPF map bytes into these plain structs;
 * the functions here only format them, so they are golden-tested without
 * root or a kernel.  Output is byte-compatible with bpftrace where bpftrace
 * is right (see docs/differences.md for where it is not).
 */
#ifndef SONDE_PRINT_H
#define SONDE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum pr_format { PR_TEXT, PR_JSON };

enum pr_kind {
	PR_INT,		/* count, sum, min, max, plain integer: ival */
	PR_AVG,		/* total / count (integer division, as bpftrace) */
	PR_STATS,	/* count, average, total */
	PR_HIST,	/* log2 buckets, see below */
	PR_LHIST,	/* linear buckets, see below */
	PR_TEXT_VAL,	/* value already rendered: strings, symbols, tuples, stacks */
};
/* In JSON a PR_TEXT_VAL value with text_is_str is quoted and escaped here;
 * any other text is written as it stands, so a reader printing JSON must
 * render it as JSON itself (a tuple as [1,"a"], bpftrace's form). */

/* One element of a map key, already rendered ("123", "bash", "(1, 2)").
 * is_str: the element is a string.  Elements that are not strings and read
 * as decimal integers sort numerically (as unsigned 64-bit, like bpftrace),
 * the rest by bytes.  JSON keys are all elements joined by "," in one
 * quoted string, as bpftrace writes them ("1,bash"). */
struct pr_key {
	const char *text;
	bool is_str;
};

/*
 * hist buckets: index 0 counts negative values, 1 counts 0, and index
 * i >= 2 counts [2^(i-2), 2^(i-1)).  nbuckets is at most PR_HIST_BUCKETS.
 * lhist buckets: index 0 counts values below lh_min, index i in
 * 1..n counts [lh_min + (i-1)*step, lh_min + i*step), the last index counts
 * values >= lh_max; n = (lh_max - lh_min) / step, nbuckets = n + 2.
 */
#define PR_HIST_BUCKETS 66

struct pr_entry {
	struct pr_key *key;	/* nkey elements; NULL/0 for a map without keys */
	int nkey;
	int64_t ival;		/* PR_INT */
	int64_t count, total;	/* PR_AVG, PR_STATS */
	uint64_t *buckets;	/* PR_HIST, PR_LHIST */
	int nbuckets;
	const char *text;	/* PR_TEXT_VAL */
	bool text_is_str;	/* PR_TEXT_VAL: quote in JSON */
};

struct pr_map {
	const char *name;	/* "@lat", "@" */
	enum pr_kind kind;
	int64_t lh_min, lh_max, lh_step;	/* PR_LHIST */
	struct pr_entry *entries;
	size_t nentries;
};

/*
 * Print one map as bpftrace's print(@m, top, div) would: entries sorted
 * ascending by value (int: ival; avg/stats: total/count; hist/lhist: sum of
 * buckets; PR_TEXT_VAL: by key only, as bpftrace), ties by key; only the
 * last `top` when top > 0; values divided by `div` when div > 1.  As in
 * bpftrace, stats maps ignore top and div, lhist maps ignore div, and hist
 * divides the printed counts but draws the bars from the raw ones.  Sorts
 * m->entries in place.
 * Text: entry lines, then "\n" (an empty map prints just "\n"); avg and
 * stats add one more "\n"; each hist/lhist entry is "@m[k]: \n" plus its
 * bar lines, entries separated by "\n", then "\n".
 * JSON: one line {"type": "map"|"stats"|"hist", "data": {"@m": ...}}, or
 * nothing at all for an empty map.
 */
void pr_map(FILE *out, enum pr_format f, struct pr_map *m, uint32_t top, uint32_t div);

/* hist/lhist bodies alone, e.g. for one key of a keyed hist */
void pr_hist_text(FILE *out, const uint64_t *buckets, int nbuckets);
void pr_lhist_text(FILE *out, const uint64_t *buckets, int nbuckets,
		   int64_t min, int64_t max, int64_t step);
/* "[4K, 8K)" style label for hist bucket i into buf ("(..., 0)" for 0, "[0]", "[1]") */
void pr_hist_label(char *buf, size_t len, int i);

/* JSON helpers for the other event types */
void pr_json_string(FILE *out, const char *s, size_t len);	/* quoted, escaped */
void pr_json_event(FILE *out, const char *type, const char *data_json);	/* {"type": T, "data": D}\n */
/* printf output in the selected format: text verbatim, JSON {"type": "printf", "data": "..."} */
void pr_printf_out(FILE *out, enum pr_format f, const char *text, size_t len);
/* the same for the other text events, as bpftrace names them: "time",
 * "cat", "syscall" (system()'s output) */
void pr_message(FILE *out, enum pr_format f, const char *type, const char *text,
		size_t len);
/* text "Attached 1 probe" / "Attached N probes" (the caller writes it to
 * stderr); JSON {"type": "attached_probes", "data": {"probes": N}} */
void pr_attached(FILE *out, enum pr_format f, int nprobes);
/* text "Lost N events"; JSON {"type": "lost_events", "data": {"events": N}} */
void pr_lost_events(FILE *out, enum pr_format f, uint64_t lost);

#endif
