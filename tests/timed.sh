#!/bin/bash
# timed.sh NAME TIMES CMD... - runs CMD and appends "NAME WALL CPU" (whole
# seconds; CPU is user + system of CMD and every process it waited for) to
# the file TIMES, for make check's table of times (tests/summary.sh).
# Exits with CMD's status.  An empty TIMES runs CMD alone.
name=$1 times=$2
shift 2
[ -n "$times" ] || exec "$@"
t=$(mktemp)
/usr/bin/time -f '%e %U %S' -o "$t" "$@"
rc=$?
# time(1) puts "Command exited with non-zero status N" first then
tail -1 "$t" | awk -v n="$name" '{ printf "%s %.0f %.0f\n", n, $1, $2 + $3 }' >> "$times"
rm -f "$t"
exit $rc
