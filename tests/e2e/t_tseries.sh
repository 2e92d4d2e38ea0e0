# t_tseries.sh - tseries(value, interval, num_intervals[, agg]) on real BPF
# (bpftrace 0.26's time series): every aggregation, keyed and keyless,
# merged across CPUs; print(), clear(), zero(), delete() and the maps at
# exit; text, JSON and the OpenMetrics gauge; the argument errors (the
# wrong number of them shows the call's form).
#
# Nothing here depends on timing.  The `work 2000` runs use 1000-day
# intervals, so that all 2000 calls land in one interval (its boundaries
# are years apart) and every value is exact.  The `spaced` workload sleeps
# at least one interval after each call, so each call has an interval of
# its own however busy the machine is: the rows that hold values are
# exactly the calls, in order, whatever gaps ("-" rows) lie between them.

(
# -- errors: located, before anything loads (no root needed) ----------------
ts_err() {	# NAME SCRIPT EXPECTED-FIRST-LINE
	local out
	out=$("$SONDE" -e "$2" 2>&1 >/dev/null; echo "rc=$?")
	expect_eq "tseries:err_$1" "$3
rc=1" "$(printf '%s\n' "$out" | sed -n '1p;$p')"
}
ts_err interval_not_literal 'BEGIN { $i = 5; @a = tseries(1, $i, 5); }' \
	'stdin:1:33: error: tseries(value, interval, num_intervals): the interval must be a constant, like 100ms or 1s'
ts_err interval_zero 'BEGIN { @a = tseries(1, 0, 5); }' \
	'stdin:1:25: error: tseries(): the interval must be a positive duration, like 100ms or 1s (nanoseconds), not 0'
ts_err num_intervals_range 'BEGIN { @a = tseries(1, 1s, 2000000); }' \
	'stdin:1:29: error: tseries(): num_intervals must be 1 to 1000000, not 2000000'
ts_err unknown_agg 'BEGIN { @a = tseries(1, 1s, 5, "median"); }' \
	'stdin:1:32: error: tseries(): unknown aggregation "median": use "avg", "max", "min" or "sum" (none keeps each interval'"'"'s last value)'
# the wrong number of arguments shows the call's form
ts_err arity 'BEGIN { @a = tseries(1); }' \
	'stdin:1:14: error: tseries() takes 3 to 4 arguments, 1 given: tseries(value, interval, num_intervals[, agg])'
ts_err arity_five 'BEGIN { @a = tseries(1, 1s, 5, "avg", 2); }' \
	'stdin:1:14: error: tseries() takes 3 to 4 arguments, 5 given: tseries(value, interval, num_intervals[, agg])'
ts_err mixed_kinds 'BEGIN { @a = tseries(1, 1s, 5); @a = sum(1); }' \
	"stdin:1:38: error: map '@a' is used as sum here but as tseries elsewhere"
ts_err other_bounds 'BEGIN { @a = tseries(1, 1s, 5); @a = tseries(1, 1s, 6); }' \
	"stdin:1:38: error: map '@a' is a tseries with another interval, num_intervals or aggregation elsewhere"

if ! need_root tseries; then exit 0; fi
TS=$B/tseries
mkdir -p "$TS"
build_workload work
build_workload spaced
cp "$B/work" "$TS/work"	# files of their own: only this suite's runs fire
cp "$B/spaced" "$TS/spaced"
W=$TS/work S=$TS/spaced

# -- one interval, exact values: work(i % 1000, i % 7) for i < 2000 ------------
cat > "$TS/aggs.bt" <<BT
uprobe:$W:work {
	@sum = tseries(arg0, 1000d, 3, "sum");
	@avg = tseries(arg0, 1000d, 3, "avg");
	@last = tseries(arg0, 1000d, 3);
	@min[arg1] = tseries(arg0, 1000d, 3, "min");
	@max[arg1] = tseries(arg0, 1000d, 3, "max");
	@n[arg1] = tseries(1, 1000d, 3, "sum");
}
BT
"$SONDE" -q -c "$W 2000" "$TS/aggs.bt" > "$TS/aggs.out" 2> "$TS/aggs.err"
# the whole graph of @sum, its one row's stamp aside (the interval's start)
expect_eq tseries:text_graph "@sum:
                   998999                                         999001
hh:mm:ss.ns        |___________________________________________________|
XX:XX:XX.XXXXXXXXX |                         *                         | 999000
                   v___________________________________________________v
                   998999                                         999001" "$(sed -n '/^@sum:/,/^$/p' "$TS/aggs.out" | sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9} /XX:XX:XX.XXXXXXXXX /')"
# each map's rows: "NAME KEY VALUE" from the graphs' value rows
rows() {
	awk '/^@/ { name = $1; sub(/:$/, "", name) }
	     /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/ { print name, $NF }' "$1"
}
want=$(python3 -c '
import collections
mn, mx, n = {}, {}, collections.Counter()
for i in range(2000):
    a, k = i % 1000, i % 7
    mn[k] = min(mn.get(k, a), a); mx[k] = max(mx.get(k, a), a); n[k] += 1
print("@avg", sum(i % 1000 for i in range(2000)) // 2000)
print("@last", 1999 % 1000)
for k in range(7): print("@max[%d]" % k, mx[k])
for k in range(7): print("@min[%d]" % k, mn[k])
for k in range(7): print("@n[%d]" % k, n[k])
print("@sum", sum(i % 1000 for i in range(2000)))')
expect_eq tseries:aggregations "$want" "$(rows "$TS/aggs.out")"

"$SONDE" -q -f json -c "$W 2000" "$TS/aggs.bt" > "$TS/aggs.json" 2> "$TS/aggs.jerr"
expect_eq tseries:json "$want" "$(python3 -c '
import json, re, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert r["type"] == "tseries", r
    for name, d in r["data"].items():
        series = d.items() if isinstance(d, dict) else [(None, d)]
        for k, pts in series:
            assert len(pts) == 1, pts
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}", pts[0]["interval_start"])
            print(name if k is None else "%s[%s]" % (name, k), pts[0]["value"])
' "$TS/aggs.json" 2>&1)"

# -- print(), clear(), zero(), delete() ------------------------------------------
cat > "$TS/ops.bt" <<BT
uprobe:$W:work {
	@s = tseries(arg0, 1000d, 2, "sum"); @z = tseries(7, 1000d, 2); @d[arg1] = tseries(1, 1000d, 2, "sum");
	@dd[arg1] = tseries(1, 1000d, 4096, "sum");
}
uprobe:$W:other {
	print(@s); clear(@s); print(@s); zero(@z); delete(@d, 3); delete(@d, 5);
	if (delete(@dd, 1) && !delete(@dd, 1)) { delete(@dd, 2); }
}
BT
"$SONDE" -q -c "$W 2000" "$TS/ops.bt" > "$TS/ops.out" 2> "$TS/ops.err"
# print() shows the sum once; after clear() the map prints nothing, at the
# print and at exit; after zero() no interval holds a value; delete()
# removed keys 3 and 5 (all their intervals); of a map of 4096 intervals
# too (a bounded loop the verifier takes), true only when the key was there
expect_eq tseries:print_clear_zero_delete "@s 999000
@d[0] 286
@d[1] 286
@d[2] 286
@d[4] 286
@d[6] 285
@dd[0] 286
@dd[3] 286
@dd[4] 286
@dd[5] 285
@dd[6] 285
@z <no data>" "$(awk '/^@/ { name = $1; sub(/:$/, "", name) }
	/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/ { print name, $NF }
	/^<no data>$/ { print name, $0 }' "$TS/ops.out")"

# -- one interval per call: the rows, the gaps, the window ----------------------
cat > "$TS/spaced.bt" <<BT
uprobe:$S:mark { @v = tseries(arg1, 100ms, 1000); @odd[arg0 % 2] = tseries(1, 100ms, 1000, "sum"); }
BT
"$SONDE" -q -c "$S 5 100" "$TS/spaced.bt" > "$TS/spaced.out" 2> "$TS/spaced.err"
# @v: the five values in order, each in a row of its own, first and last
# rows hold values; what lies between is "-" (an interval without a call)
expect_eq tseries:rows_in_order "0 1 4 9 16 first=0 last=16" "$(awk '/^@v:/ { f = 1; next } /^@/ { f = 0 }
	f && /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9] / { r[++n] = $NF }
	END { for (i = 1; i <= n; i++) if (r[i] != "-") printf "%s ", r[i]; printf "first=%s last=%s", r[1], r[n] }' "$TS/spaced.out")"
# the stamps are 100 ms apart, one row per interval
expect_eq tseries:stamps_step "ok" "$(awk '/^@v:/ { f = 1; next } /^@/ { f = 0 }
	f && /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9] / {
		split($1, t, /[:.]/); ms = ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + t[4]
		if (n++ && ms - prev != 100) bad = 1; prev = ms }
	END { print (n >= 5 && !bad) ? "ok" : "bad n=" n }' "$TS/spaced.out")"
# @odd[1]'s window ends with @odd[0]'s last interval (bpftrace's rule: the
# newest interval of any key): its last row is "-"
expect_eq tseries:window_shared "- 1" "$(awk '/^@odd\[1\]:/ { f = 1; next } /^@|^$/ { if (f) exit }
	f && /^[0-9][0-9]:/ { last = $NF } END { print last }' "$TS/spaced.out") $(awk '/^@odd\[0\]:/ { f = 1; next } /^@|^$/ { if (f) exit }
	f && /^[0-9][0-9]:/ { last = $NF } END { print last }' "$TS/spaced.out")"
expect_eq tseries:sums "odd0=3 odd1=2" "$(awk '/^@/ { k = "" } /^@odd\[/ { k = substr($1, 6, 1) } k != "" && /^[0-9][0-9]:/ && $NF != "-" { s[k] += $NF }
	END { printf "odd0=%d odd1=%d", s[0], s[1] }' "$TS/spaced.out")"

# -- print() on an interval probe, while the workload runs, then at exit ------------
cat > "$TS/live.bt" <<BT
uprobe:$S:mark { @v = tseries(arg1, 100ms, 1000); @c = count(); }
interval:ms:200 /@c >= 2/ { print(@v); exit(); }
BT
"$SONDE" -q -c "$S 30 100" "$TS/live.bt" > "$TS/live.out" 2> "$TS/live.err"
# each print's value rows: a prefix of 0 1 4 9 ... of at least two calls,
# the print at exit holding at least as many as the one before it
expect_eq tseries:print_on_interval "ok" "$(awk '/^@v:/ { n++; k[n] = 0 }
	n && /^[0-9][0-9]:/ && $NF != "-" { if ($NF != k[n] * k[n]) bad = 1; k[n]++ }
	END { print (n == 2 && k[1] >= 2 && k[2] >= k[1] && !bad) ? "ok" : "bad n=" n " " k[1] " " k[2] }' "$TS/live.out")"

# -- OpenMetrics: a gauge of the latest complete interval -----------------------
# spaced sleeps an interval after its last call: at exit that interval is over
"$SONDE" -q -f openmetrics -o "$TS/spaced.prom" -c "$S 5 100" "$TS/spaced.bt" 2> "$TS/prom.err"
expect_eq tseries:openmetrics_gauge "# TYPE sonde_v gauge
sonde_v 16" "$(grep -E '^(# TYPE sonde_v |sonde_v)' "$TS/spaced.prom")"
# and Prometheus's own parser takes the 0.0.4 text of it
"$SONDE" -q -f prometheus -o "$TS/spaced.txt.prom" -c "$S 3 100" "$TS/spaced.bt" 2> "$TS/prom2.err"
if ! command -v promtool >/dev/null; then
	skip tseries:promtool "promtool is not installed (make deps installs prometheus)"
elif out=$(promtool check metrics < "$TS/spaced.txt.prom" 2>&1) && grep -q '^sonde_v 4$' "$TS/spaced.txt.prom"; then
	pass tseries:promtool
else
	fail tseries:promtool
	printf '%s\n' "$out" | head -5 | sed 's/^/    /'
fi
)
