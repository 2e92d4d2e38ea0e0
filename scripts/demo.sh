#!/bin/bash
# demo.sh SONDE - what `make demo` runs: one recipe, about five seconds, on
# this machine, against a load the demo starts itself, then what it showed.
#
# The load is tests/workloads/spin.c: two busy threads pinned to CPU 0, so
# each is runnable while the other holds the CPU.  The recipe is runqlat,
# filtered to the load's pid, one histogram per thread name.  Needs root
# (BPF) and gcc (make deps installs it).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
sonde=${1:-$top/build/sonde}
secs=5

if [ "$(id -u)" != 0 ]; then
	echo "demo: sonde loads BPF programs, which needs root: run 'sudo make demo'" >&2
	exit 1
fi
if [ ! -x "$sonde" ]; then
	echo "demo: no sonde binary at $sonde (run make first)" >&2
	exit 1
fi
work=$(mktemp -d /tmp/sonde-demo.XXXXXX)
load=
trap '[ -n "$load" ] && kill "$load" 2>/dev/null; rm -rf "$work"' EXIT
if ! gcc -O1 -pthread -o "$work/spin" "$top/tests/workloads/spin.c"; then
	echo "demo: cannot build the load (tests/workloads/spin.c) with gcc" >&2
	exit 1
fi

echo "== sonde demo: run-queue latency (scripts/runqlat.sonde)"
echo "   load: two busy threads pinned to CPU 0 for $((secs + 1)) s (tests/workloads/spin.c)"
echo "   command: sonde $here/runqlat.sonde PID 1 $secs   (PID = the load, 1 = per thread name, $secs s)"
echo
"$work/spin" 2 $(((secs + 1) * 1000)) &
load=$!
"$sonde" -q "$here/runqlat.sonde" "$load" 1 "$secs" > "$work/out" 2> "$work/err"
rc=$?
wait "$load" 2>/dev/null
load=
# the histogram, without the blank lines sonde prints around its maps
grep -v '^$' "$work/out"
if [ $rc -ne 0 ] || ! grep -q '^@runq_usecs_by_comm\[spin\]' "$work/out"; then
	echo "demo: runqlat measured nothing (exit status $rc)" >&2
	cat "$work/err" >&2
	exit 1
fi
echo
# the busiest bucket, to say in words what the histogram shows
peak=$(awk '/^\[/ { l = $0; sub(/ \|.*/, "", l); n = split(l, f, " "); n = f[n] + 0
	lab = substr($0, 1, index($0, $1 ~ /\]$/ ? "]" : ")"));
	if (n > max) { max = n; at = lab } } END { print at " us (" max " waits)" }' "$work/out")
echo "What it shows: every time one spinning thread is preempted it waits in CPU 0's run queue"
echo "for the other's time slice; the busiest bucket is $peak, where a healthy host stays under 10 us."
