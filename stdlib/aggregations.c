/*
 * aggregations.c - count sum avg min max stats hist lhist tseries.
 *
 * Each is only valid as the value of a map assignment (`@m[k] = hist(x)`).
 * sema records the map's kind from it; codegen/maps.c performs the per-CPU
 * update (cg_agg_update), so these entries only check arguments.
 */
#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

#include <string.h>

static bool int_arg(struct sema_ctx *s, struct ast_node *n, struct ast_node *a)
{
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR)
		return false;
	if (t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "%s() needs an integer argument, not %s", n->call.name,
			   type_str(sema_arena(s), t));
		return false;
	}
	return true;
}

static void check_agg(struct sema_ctx *s, struct ast_node *n, enum map_kind k, enum type_kind tk)
{
	if (n->call.nargs && !int_arg(s, n, n->call.args)) {
		n->type.kind = TY_ERROR;
		return;
	}
	sema_map_set_kind(s, sema_assign_target(s), k, n->loc);
	n->type = (struct type){.kind = tk, .size = 8};
}

static void check_count(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_COUNT, TY_COUNT); }
static void check_sum(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_SUM, TY_SUM); }
static void check_avg(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_AVG, TY_AVG); }
static void check_min(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_MIN, TY_MIN); }
static void check_max(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_MAX, TY_MAX); }
static void check_stats(struct sema_ctx *s, struct ast_node *n) { check_agg(s, n, MK_STATS, TY_STATS); }
/* hist(value[, k]): k, a constant 0..5, gives 2^k buckets per power of two */
static void check_hist(struct sema_ctx *s, struct ast_node *n)
{
	check_agg(s, n, MK_HIST, TY_HIST);
	if (n->type.kind == TY_ERROR)
		return;
	int64_t k = 0;
	struct ast_node *a = n->call.args->next;
	if (a) {
		sema_expr(s, a);
		if (!sema_const_int(s, a, &k)) {
			n->type.kind = TY_ERROR;
			return;
		}
		if (k < 0 || k > 5) {
			sema_error(s, a->loc, "hist(value, k): k must be between 0 and 5, not %lld",
				   (long long)k);
			n->type.kind = TY_ERROR;
			return;
		}
	}
	struct sema_map *m = sema_map_of(s, sema_assign_target(s));
	if (m->hist_set && m->hist_bits != k) {
		sema_error(s, n->loc, "map '%s' is a hist with %d bits elsewhere", m->name, m->hist_bits);
		return;
	}
	m->hist_set = true;
	m->hist_bits = (int)k;
}

/* lhist(value, min, max, step): constants with min < max, step > 0 */
static void check_lhist(struct sema_ctx *s, struct ast_node *n)
{
	check_agg(s, n, MK_LHIST, TY_LHIST);
	if (n->type.kind == TY_ERROR)
		return;
	int64_t v[3];
	struct ast_node *a = n->call.args->next;
	for (int i = 0; i < 3; i++, a = a->next) {
		sema_expr(s, a);
		if (!sema_const_int(s, a, &v[i])) {
			n->type.kind = TY_ERROR;
			return;
		}
	}
	if (v[0] < 0 || v[1] <= v[0] || v[2] <= 0) {
		sema_error(s, n->loc, "lhist(value, min, max, step) needs 0 <= min < max and step > 0");
		n->type.kind = TY_ERROR;
		return;
	}
	if ((v[1] - v[0]) / v[2] > 1000) {
		sema_error(s, n->loc, "lhist() would have %lld buckets; at most 1000",
			   (long long)((v[1] - v[0]) / v[2]));
		n->type.kind = TY_ERROR;
		return;
	}
	struct sema_map *m = sema_map_of(s, sema_assign_target(s));
	if (m->lh_step && (m->lh_min != v[0] || m->lh_max != v[1] || m->lh_step != v[2])) {
		sema_error(s, n->loc, "map '%s' is an lhist with other bounds elsewhere", m->name);
		return;
	}
	m->lh_min = v[0];
	m->lh_max = v[1];
	m->lh_step = v[2];
	n->type.lh_min = v[0];
	n->type.lh_max = v[1];
	n->type.lh_step = v[2];
}

/* a compile-time integer argument of tseries(), or an error that says
 * which argument and what it takes */
static bool ts_const(struct sema_ctx *s, struct ast_node *a, const char *what, int64_t *v)
{
	if (sema_expr(s, a)->kind == TY_ERROR)
		return false;
	if (!sema_fold_const(a, v)) {
		sema_error(s, a->loc, "tseries(value, interval, num_intervals): %s must be a "
			   "constant, like %s", what, !strcmp(what, "the interval") ? "100ms or 1s" : "10");
		return false;
	}
	return true;
}

/*
 * tseries(value, interval, num_intervals[, agg]): the value of each of the
 * last num_intervals intervals of `interval` nanoseconds (a duration
 * literal: 100ms, 1s), per key.  agg combines the values of one interval:
 * "avg", "max", "min" or "sum"; without it an interval keeps the last
 * value written in it, as bpftrace.
 */
static void check_tseries(struct sema_ctx *s, struct ast_node *n)
{
	static const char *const aggs[] = {"avg", "max", "min", "sum"};
	static const enum ts_agg agg_of[] = {TS_AVG, TS_MAX, TS_MIN, TS_SUM};
	struct ast_node *val = n->call.args, *iv = val->next, *num = iv->next, *ag = num->next;
	n->type.kind = TY_ERROR;
	if (!int_arg(s, n, val))
		return;
	int64_t interval, nint;
	if (!ts_const(s, iv, "the interval", &interval) ||
	    !ts_const(s, num, "num_intervals", &nint))
		return;
	if (interval <= 0) {
		sema_error(s, iv->loc, "tseries(): the interval must be a positive duration, like "
			   "100ms or 1s (nanoseconds), not %lld", (long long)interval);
		return;
	}
	/* an interval is numbered by TAI ns / interval, and number 0 marks a
	 * slot nobody wrote: intervals must be short beside the time since 1970 */
	if (interval > TS_MAX_INTERVAL_NS) {
		sema_error(s, iv->loc, "tseries(): the interval must be at most 10000d (27 years), "
			   "not %lld ns", (long long)interval);
		return;
	}
	if (nint < 1 || nint > TS_MAX_INTERVALS) {
		sema_error(s, num->loc, "tseries(): num_intervals must be 1 to %d, not %lld",
			   TS_MAX_INTERVALS, (long long)nint);
		return;
	}
	enum ts_agg agg = TS_LAST;
	if (ag) {
		if (ag->kind != N_STR) {
			sema_expr(s, ag);
			sema_error(s, ag->loc, "tseries(): the aggregation must be a string literal: "
				   "\"avg\", \"max\", \"min\" or \"sum\"");
			return;
		}
		size_t i = 0;
		while (i < 4 && strcmp(ag->s.value, aggs[i]))
			i++;
		if (i == 4) {
			sema_error(s, ag->loc, "tseries(): unknown aggregation \"%s\": use \"avg\", "
				   "\"max\", \"min\" or \"sum\" (none keeps each interval's last "
				   "value)", ag->s.value);
			return;
		}
		agg = agg_of[i];
	}
	struct ast_node *target = sema_assign_target(s);
	if (!sema_map_set_kind(s, target, MK_TSERIES, n->loc))
		return;
	n->type = (struct type){.kind = TY_TSERIES, .size = 8};
	struct sema_map *m = sema_map_of(s, target);
	if (m->ts_interval && (m->ts_interval != (uint64_t)interval ||
			       m->ts_nintervals != (uint32_t)nint || m->ts_agg != agg)) {
		sema_error(s, n->loc, "map '%s' is a tseries with another interval, num_intervals "
			   "or aggregation elsewhere", m->name);
		return;
	}
	if (!m->ts_interval)
		m->ts_unsigned = val->type.kind == TY_INT && !val->type.is_signed;
	m->ts_interval = (uint64_t)interval;
	m->ts_nintervals = (uint32_t)nint;
	m->ts_agg = agg;
}

#define AGG(nm, na, chk, k, doc) \
	{.name = nm, .kind = BI_AGG, .min_args = na, .max_args = na, .check = chk, .agg = k, \
	 .user = true, .summary = doc}

const struct builtin stdlib_aggregations[] = {
	AGG("count", 0, check_count, MK_COUNT, "count events"),
	AGG("sum", 1, check_sum, MK_SUM, "sum of values"),
	AGG("avg", 1, check_avg, MK_AVG, "average of values"),
	AGG("min", 1, check_min, MK_MIN, "minimum value"),
	AGG("max", 1, check_max, MK_MAX, "maximum value"),
	AGG("stats", 1, check_stats, MK_STATS, "count, average and total"),
	{.name = "hist", .kind = BI_AGG, .min_args = 1, .max_args = 2, .check = check_hist,
	 .agg = MK_HIST, .user = true,
	 .summary = "power-of-2 histogram; hist(value, k): 2^k buckets per power of two",
	 .signature = "hist(value[, k])"},
	{.name = "lhist", .kind = BI_AGG, .min_args = 4, .max_args = 4, .check = check_lhist,
	 .agg = MK_LHIST, .user = true, .summary = "linear histogram: lhist(value, min, max, step)",
	 .signature = "lhist(value, min, max, step)"},
	{.name = "tseries", .kind = BI_AGG, .min_args = 3, .max_args = 4, .check = check_tseries,
	 .agg = MK_TSERIES,
	 .summary = "time series: tseries(value, 1s, 10[, \"avg\"|\"max\"|\"min\"|\"sum\"])",
	 .signature = "tseries(value, interval, num_intervals[, agg])"},
	{0},
};
