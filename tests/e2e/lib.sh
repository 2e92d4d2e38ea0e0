# lib.sh - helpers for the end-to-end suites (sourced).
#
# Every check appends one line to $RESULTS: "PASS e2e:NAME",
# "FAIL e2e:NAME", or "SKIP e2e:NAME: reason".  Nothing is skipped
# silently: a missing prerequisite is a SKIP line with its reason.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SONDE=${SONDE:-$top/build/sonde}
RESULTS=${RESULTS:-/dev/null}
B=${E2E_BUILD:-$top/build/e2e}
mkdir -p "$B"
# ASan: leaks are errors; libbpf/LLVM globals are not ours to free at exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# use_tls=0: LeakSanitizer (GCC 12's) reads each thread's dynamic TLS blocks
# from what it recorded at __tls_get_addr, and a dlopen'd libdw's block in
# the main thread came out as 0x17b1 once the CFI reader thread had used
# libdw (bt026 call.ustack: "Tracer caught signal 11", no report); thread
# stacks, globals and the heap are still scanned, and sonde keeps no heap
# pointer only in TLS (print_suppressions=0: the suppressed tls_get_addr
# block is not listed on stderr, which tests compare)
export LSAN_OPTIONS=${LSAN_OPTIONS:-use_tls=0:print_suppressions=0:suppressions=$top/tests/lsan.supp}

suite=${suite:-e2e}
pass() { echo "PASS $suite:$1"; echo "PASS $suite:$1" >> "$RESULTS"; }
fail() { echo "FAIL $suite:$1"; echo "FAIL $suite:$1" >> "$RESULTS"; }
skip() { echo "SKIP $suite:$1: $2"; echo "SKIP $suite:$1: $2" >> "$RESULTS"; }

# build_workload NAME [extra gcc flags]: tests/workloads/NAME.c -> $B/NAME
build_workload() {
	local name=$1; shift
	[ "$B/$name" -nt "$top/tests/workloads/$name.c" ] && return 0
	gcc -O1 -g -pthread "$@" -o "$B/$name" "$top/tests/workloads/$name.c"
}

# sh_script NAME TEXT: TEXT as the executable shell script $B/NAME.sh,
# whose path it prints: -c CMD is split at its spaces, as bpftrace splits
# it, and runs no shell, so a pipeline or a quoted word needs a script
sh_script() {
	printf '#!/bin/sh\n%s\n' "$2" > "$B/$1.sh"
	chmod +x "$B/$1.sh"
	echo "$B/$1.sh"
}

# expect_eq NAME EXPECTED ACTUAL: exact bytes, with a diff on failure
expect_eq() {
	if [ "$2" == "$3" ]; then pass "$1"; else
		fail "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | head -40 | sed 's/^/    /'
	fi
}

# expect_match NAME REGEX ACTUAL: a line of ACTUAL matches REGEX (ERE); a
# REGEX of several lines is matched against the whole of ACTUAL (^ is its
# start, $ its end), as grep would take each of its lines as a pattern of
# its own and pass when any one of them matched
expect_match() {
	local ok=""
	if [[ $2 == *$'\n'* ]]; then
		[[ $3 =~ $2 ]] && ok=1
	else
		printf '%s\n' "$3" | grep -Eq -- "$2" && ok=1
	fi
	if [ -n "$ok" ]; then pass "$1"; else
		fail "$1"; printf '%s\n' "$3" | head -30 | sed 's/^/    /'
		echo "    (expected to match: $2)"
	fi
}

# bpftrace 0.17 (an oracle in some suites) cannot mount tracefs itself
if [ "$(id -u)" = 0 ] && [ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
fi

# pid_calls_start DIR [twice]: DIR/pid_calls (a copy of the workload, so
# only this run's process fires its probes) running `pid_calls 5`, ready and
# waiting for its go: its pid in $wp, the go fifo open on fd 7
pid_calls_start() {
	rm -f "$1/go" "$1/wl.out" && mkfifo "$1/go"
	"$1/pid_calls" 5 "${@:2}" < "$1/go" > "$1/wl.out" &
	wp=$!
	exec 7> "$1/go"
	wait_for "$1/wl.out" '^ready'
}
# pid_calls_go OUT ARGS...: sonde -p $wp ARGS (not -q: its "Attached" line
# is waited for) into OUT, the go once it attached; sonde ends with the
# process
pid_calls_go() {
	local out=$1 sp
	shift
	rm -f "$out"	# the wait below must not find the last run's "Attached"
	"$SONDE" -p "$wp" "$@" > "$out" 2>&1 &
	sp=$!
	wait_for "$out" '^Attached' 60
	echo g >&7
	exec 7>&-
	wait "$sp"
	wait "$wp"
}

# zombie_start DIR CMD...: CMD run as the child of tests/workloads/zombie,
# which keeps it unreaped once it exits: the zombie's pid in $zp, its
# parent's in $zparent, the parent's stdin (a fifo) open on fd 8 until
# zombie_end.  Returns 1 and says why unless /proc/$zp/stat shows state Z
# with $zparent as the parent when it returns.
zombie_start() {
	local d=$1; shift
	build_workload zombie
	rm -f "$d/zgo" "$d/zombie.out" && mkfifo "$d/zgo"
	"$B/zombie" "$@" < "$d/zgo" > "$d/zombie.out" &
	zparent=$!
	exec 8> "$d/zgo"
	zp=
	wait_for "$d/zombie.out" '^zombie [0-9]+$' 60 && zp=$(awk '{ print $2 }' "$d/zombie.out")
	# the fields after the comm, which may hold spaces and parentheses
	[ -n "$zp" ] && [ "$(sed 's/.*) //' "/proc/$zp/stat" 2>/dev/null | cut -d' ' -f1,2)" = "Z $zparent" ] && return 0
	echo "    setup: no zombie child of $zparent: pid '$zp', stat '$(cat "/proc/$zp/stat" 2>&1)'"
	return 1
}
zombie_end() {
	exec 8>&-
	wait "$zparent"
}

# wait_threads PID N [SECONDS]: wait until process PID runs N threads (a
# workload that starts its threads after exec has then exec'd and started)
wait_threads() {
	local i n=$(( ${3:-30} * 10 ))
	for ((i = 0; i < n; i++)); do
		[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "    process $1 did not start $2 threads"
	return 1
}

# int_stop PID: end a sonde running in the background as a user would,
# with SIGINT, sent again every 5 s; one still there after 120 s is killed
# (its checks then fail) rather than left to hang the suite.  On a loaded
# machine a sonde was seen to stay in its loop after one SIGINT
# (t_pystack.sh's py_stop)
int_stop() {
	local i
	for ((i = 0; i < 1200; i++)); do
		((i % 50)) || kill -INT "$1" 2>/dev/null
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null && echo "    sonde did not end on SIGINT: killed"
	wait "$1"
}

# cpu_ticks PID: the clock ticks (user and system, 100 a second) process
# PID has run; wait_cpu_ticks PID N [SECONDS]: wait until it has run N more
# than when called (SECONDS, default 120, guard a hang).  A sampler's count
# follows the CPU time its target got, which a busy machine makes a small
# share of the wall time
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
wait_cpu_ticks() {
	local i t0 t n=$(( ${3:-120} * 20 ))
	t0=$(cpu_ticks "$1")
	[ -n "$t0" ] || return 1
	for ((i = 0; i < n; i++)); do
		t=$(cpu_ticks "$1")
		[ -n "$t" ] || return 1
		[ "$t" -ge $((t0 + $2)) ] && return 0
		sleep 0.05
	done
	echo "    process $1 ran $((t - t0)) of $2 clock ticks in ${3:-120} s"
	return 1
}

# kill_reap PID...: SIGKILL each workload process, then reap it
kill_reap() {
	local p
	for p in "$@"; do kill -KILL "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
}

# cgroup_remove DIR: move what is still inside (a stray grandchild) back to
# the root cgroup ($CGROOT), then remove DIR; says so when it cannot
cgroup_remove() {
	local p
	[ -n "$1" ] && [ -d "$1" ] || return 0
	while read -r p; do echo "$p" > "$CGROOT/cgroup.procs"; done < "$1/cgroup.procs" 2>/dev/null
	rmdir "$1" 2>/dev/null || echo "    (cleanup: cannot remove $1)"
}

# cgroup2_root: where cgroup v2 is mounted ("" when it is not)
cgroup2_root() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root to load BPF"; return 1
}

# wait_for FILE REGEX [SECONDS]: wait until FILE has a line matching REGEX
# (a tool's "Attached" line or its BEGIN output), so that a signal sent next
# reaches a process that has installed its handlers: a background job of a
# non-interactive shell starts with SIGINT ignored, and one sent before the
# handler is set is lost.  Giving up is said on stderr (the file's log): a
# wait that always runs out costs its whole time and nothing else shows it.
wait_for() {	# FILE REGEX [SECONDS [PID: give up when it has exited]]
	local i n=$(( ${3:-30} * 10 ))
	for ((i = 0; i < n; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
			grep -Eq -- "$2" "$1" 2>/dev/null && return 0
			echo "    (wait_for: no line matching '$2' in $1: process $4 exited)" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "    (wait_for: no line matching '$2' in $1 after ${3:-30} s)" >&2
	return 1
}
