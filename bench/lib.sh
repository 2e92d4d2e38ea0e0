# bench/lib.sh - what the event benches share (sourced): the workloads
# and the progstats helper built into build/bench, BPF run-time statistics
# held on for the bench's duration, and a way to start a tracer in the
# background and wait until its probes are live.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
SONDE=${SONDE:-build/sonde}
BB=build/bench
mkdir -p "$BB"
[ -x "$SONDE" ] || { echo "${0##*/}: build sonde first (make)"; exit 1; }
command -v bpftrace >/dev/null || { echo "${0##*/}: bpftrace not installed (make deps): no ratio"; exit 1; }
gcc -O2 -o "$BB/syscall_loop" tests/workloads/syscall_loop.c || exit 1
gcc -O2 -Wall -o "$BB/progstats" bench/progstats.c -lbpf || exit 1

stats_holder=
stats_on() {
	"$BB/progstats" enable > "$BB/stats.on" &
	stats_holder=$!
	for _ in $(seq 50); do grep -q on "$BB/stats.on" 2>/dev/null && return 0; sleep 0.1; done
	echo "${0##*/}: cannot enable BPF statistics"; exit 1
}
bench_cleanup() {
	[ -n "$stats_holder" ] && kill "$stats_holder" 2>/dev/null
	[ -n "${tracer:-}" ] && kill -KILL "$tracer" 2>/dev/null
	[ -n "${other_tracer:-}" ] && kill -KILL "$other_tracer" 2>/dev/null
	wait 2>/dev/null
}
trap bench_cleanup EXIT

# total run count of the programs $1 holds (0 when none ran yet)
runs_of() { "$BB/progstats" show "$1" 2>/dev/null | awk '{n += $3} END {print n + 0}'; }

# start_tracer LOG TRACER ARGS...: start it in the background ($tracer is
# its pid) and return once its getppid probe fires: a few calls are made
# until the tracer's programs count a run (both tracers print their
# "attached" line at different moments, so the kernel is asked instead)
start_tracer() {
	local log=$1; shift
	"$@" > "$log" 2>&1 &
	tracer=$!
	for _ in $(seq 300); do
		"$BB/syscall_loop" 100 > /dev/null
		[ "$(runs_of "$tracer")" -gt 0 ] && return 0
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.05
	done
	echo "${0##*/}: tracer did not start: $*"; cat "$log"; return 1
}

# stop_tracer: SIGINT, then wait for it to print its maps and exit.  A
# background job of a script starts with SIGINT ignored, and a tracer
# whose probes already fire may not have installed its handler yet
# (bpftrace 0.17 sets it after attaching): the signal is repeated each
# second, and after 20 s the tracer is killed.
stop_tracer() {
	local i
	for i in $(seq 200); do
		[ $((i % 10)) = 1 ] && kill -INT "$tracer" 2>/dev/null
		kill -0 "$tracer" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$tracer" 2>/dev/null
	wait "$tracer" 2>/dev/null
	tracer=
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
