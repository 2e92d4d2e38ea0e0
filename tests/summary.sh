#!/bin/bash
# Print the totals of every suite's result lines and fail on any FAIL.
# The last line is "N passed, N failed, N skipped" (a format CI reads).
#   tests/summary.sh [--times TIMES] RESULTS...
# --times: a file of "PART WALL CPU" lines (seconds, tests/timed.sh writes
# them), printed as a table just before that last line.
times=""
[ "${1:-}" = --times ] && { times=$2; shift 2; }
cat "$@" 2>/dev/null > /tmp/sonde-results.$$
pass=$(grep -c '^PASS' /tmp/sonde-results.$$)
fail=$(grep -c '^FAIL' /tmp/sonde-results.$$)
skip=$(grep -c '^SKIP' /tmp/sonde-results.$$)
echo
echo "==== sonde test summary ===="
for f in "$@"; do
	[ -f "$f" ] || continue
	printf '%-28s %4d passed %4d failed %4d skipped\n' "$(basename "$f")" \
		"$(grep -c '^PASS' "$f")" "$(grep -c '^FAIL' "$f")" "$(grep -c '^SKIP' "$f")"
done
if [ "$skip" -gt 0 ]; then echo "skipped:"; grep '^SKIP' /tmp/sonde-results.$$ | sed 's/^/  /'; fi
if [ "$fail" -gt 0 ]; then echo "failed:"; grep '^FAIL' /tmp/sonde-results.$$ | sed 's/^/  /'; fi
rm -f /tmp/sonde-results.$$
if [ -s "$times" ]; then
	echo "time per part (wall and CPU = user + system, seconds; parts beside one another overlap):"
	awk '{ printf "  %-32s %6d wall %6d CPU\n", $1, $2, $3 }' "$times"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
