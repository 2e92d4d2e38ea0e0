# t_language.sh - bpftrace's own tools as a user brings them (issue 8),
# sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq).
#
# tests/e2e/tools/ holds sonde's copies of bpftrace 0.17's naptime.bt and
# runqlen.bt, changed only where the kernel changed since (each copy says
# how).  They need what issue 8 added: kernel types from BTF (curtask as a
# struct task_struct *, casts to kernel structs, tracepoint pointer
# arguments typed `struct __kernel_timespec *` and read as user memory).
#
#   naptime   sysargs.c makes 3 nanosleep(0.012345678 s) calls after 300 ms,
#             traced with -p: exactly 3 lines, each naming this shell as the
#             parent and 0.012 seconds
#   runqlen   spin.c: two busy threads pinned to CPU 0 for 1.5 s, so a
#             sample on CPU 0 finds one task waiting: the [1, 2) bucket
#             is not empty
(
T=$top/tests/e2e/tools
declare -a lg_pids=()
lg_cleanup() {
	local p
	for p in "${lg_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${lg_pids[@]}"; do wait "$p" 2>/dev/null; done
}
trap lg_cleanup EXIT

if need_root language:naptime && need_root language:runqlen; then
	build_workload sysargs && build_workload spin

	# ---- naptime.bt
	me=$BASHPID
	pcomm=$(cat "/proc/$me/comm")
	"$B/sysargs" 3 300 &
	w=$!
	lg_pids+=("$w")
	out=$(timeout -s INT 2 "$SONDE" -p "$w" "$T/naptime.bt" 2>"$B/naptime.err")
	want=$(printf '%s\n%-8s %-6s %-16s %-6s %-16s %s' "Tracing sleeps. Hit Ctrl-C to end." \
		TIME PPID PCOMM PID COMM SECONDS)
	for i in 1 2 3; do
		want+=$'\n'$(printf 'HH:MM:SS %-6d %-16s %-6d %-16s %s' "$me" "$pcomm" "$w" sysargs 0.012)
	done
	got=$(printf '%s\n' "$out" | sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2} /HH:MM:SS /')
	expect_eq language:naptime "$want" "$got"

	# ---- runqlen.bt
	"$B/spin" 2 1500 &
	lg_pids+=("$!")
	out=$(timeout -s INT 1 "$SONDE" "$T/runqlen.bt" 2>"$B/runqlen.err")
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
