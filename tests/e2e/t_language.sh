# t_language.sh - bpftrace's own tools as a user brings them (issue 8),
# sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq).
#
# tests/e2e/tools/ holds sonde's copies of bpftrace 0.17's naptime.bt and
# runqlen.bt, changed only where the kernel changed since (each copy says
# how).  They need what issue 8 added: kernel types from BTF (curtask as a
# struct task_struct *, casts to kernel structs, tracepoint pointer
# arguments typed `struct __kernel_timespec *` and read as user memory).
#
#   naptime   sysargs.c, traced with -p, makes 3 nanosleep(0.012345678 s)
#             calls once sonde has attached: exactly 3 lines, each naming
#             this shell as the parent and 0.012 seconds
#   runqlen   spin.c, started once sonde has attached: two busy threads
#             pinned to CPU 0 for a second, so a sample on CPU 0 finds one
#             task waiting: the [1, 2) bucket is not empty
#
# Each tool runs in the background until it says "Attached"; the workload
# starts then, and SIGINT ends the tool after the workload (no timing).
(
T=$top/tests/e2e/tools
declare -a lg_pids=()
lg_cleanup() {
	local p
	for p in "${lg_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${lg_pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -f "$B/lg.fifo"
}
trap lg_cleanup EXIT

# lg_attached ERRFILE PID: wait until sonde PID has attached (or exited)
lg_attached() {
	local i
	for i in $(seq 600); do
		grep -q '^Attached' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

if need_root language:naptime && need_root language:runqlen; then
	build_workload sysargs && build_workload spin

	# ---- naptime.bt
	me=$BASHPID
	pcomm=$(cat "/proc/$me/comm")
	rm -f "$B/lg.fifo"
	mkfifo "$B/lg.fifo"
	"$B/sysargs" 3 - < "$B/lg.fifo" &
	w=$!
	lg_pids+=("$w")
	exec 3> "$B/lg.fifo"
	# (the waits below must not find the last run's lines)
	rm -f "$B/naptime.out" "$B/naptime.err" "$B/runqlen.out" "$B/runqlen.err"
	"$SONDE" -p "$w" "$T/naptime.bt" > "$B/naptime.out" 2> "$B/naptime.err" &
	s=$!
	lg_pids+=("$s")
	lg_attached "$B/naptime.err" "$s" && echo go >&3
	exec 3>&-
	wait "$w"
	kill -INT "$s" 2>/dev/null
	wait "$s"
	want=$(printf '%s\n%-8s %-6s %-16s %-6s %-16s %s' "Tracing sleeps. Hit Ctrl-C to end." \
		TIME PPID PCOMM PID COMM SECONDS)
	for i in 1 2 3; do
		want+=$'\n'$(printf 'HH:MM:SS %-6d %-16s %-6d %-16s %s' "$me" "$pcomm" "$w" sysargs 0.012)
	done
	got=$(sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2} /HH:MM:SS /' "$B/naptime.out")
	expect_eq language:naptime "$want" "$got"

	# ---- runqlen.bt
	"$SONDE" "$T/runqlen.bt" > "$B/runqlen.out" 2> "$B/runqlen.err" &
	s=$!
	lg_pids+=("$s")
	lg_attached "$B/runqlen.err" "$s" && "$B/spin" 2 1000
	kill -INT "$s" 2>/dev/null
	wait "$s"
	out=$(cat "$B/runqlen.out")
	head=$(printf '%s\n' "$out" | head -1)
	one=$(printf '%s\n' "$out" | awk '$1 == "[1," && $2 == "2)" { print $3 }')
	if [ "$head" == "Sampling run queue length at 99 Hertz... Hit Ctrl-C to end." ] &&
	   printf '%s\n' "$out" | grep -q '^@runqlen: $' && [ "${one:-0}" -gt 0 ]; then
		pass language:runqlen
	else
		fail language:runqlen
		printf '%s\n' "$out" | head -20 | sed 's/^/    /'
		sed 's/^/    stderr: /' "$B/runqlen.err" | head -5
	fi
fi
)
