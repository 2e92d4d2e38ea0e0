# t_steady.sh - the event path in the steady state allocates nothing
# (issue 10; issue 14's "sonde feeding on itself" relies on it): a probe on
# malloc in sonde's own process would otherwise fire once per event.
#
# A second sonde counts the measured sonde's malloc, calloc and realloc
# calls (uprobes on the library that provides them: libasan under ASan,
# else libc; filtered by the measured pid) while it prints one line per
# getppid() of a workload.  Two runs, 10,000 and 100,000 events: startup
# and teardown are the same in both, so the difference is what 90,000
# events cost.  The bound is under 1 allocation per 1,000 events.

if need_root steady:bpf; then

build_workload syscall_loop
st_lib=$(ldd "$SONDE" 2>/dev/null | awk '$1 ~ /^libasan\.so/ { print $3; exit }')
[ -n "$st_lib" ] || st_lib=$(ldd "$SONDE" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3; exit }')
st_prog=${ST_PROG:-'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf("%d %s %d\n", pid, comm, nsecs); @n = count(); }'}
st_count='uprobe:LIB:malloc, uprobe:LIB:calloc, uprobe:LIB:realloc /pid == $1/ { @allocs = count(); }'
st_count=${st_count//LIB/$st_lib}

# st_allocs N: the allocations of a sonde that prints N events, or "fail"
st_allocs() {
	local fifo=$B/st.fifo pid cpid i
	rm -f "$fifo"
	mkfifo "$fifo"
	# the measured sonde's pid is known before it runs: a shell that
	# waits on the fifo, then execs it
	sh -c 'read go < "$0"; exec "$1" -q -c "$2" -e "$3" > "$4"' "$fifo" "$SONDE" \
		"$B/syscall_loop $1" "$st_prog" "$B/st.out" &
	pid=$!
	"$SONDE" -e "$st_count" "$pid" > "$B/st.count" 2> "$B/st.err" &
	cpid=$!
	if ! wait_for "$B/st.err" '^Attached' 30; then
		kill -KILL $pid $cpid 2>/dev/null; wait $pid $cpid 2>/dev/null
		echo fail; return
	fi
	echo go > "$fifo"
	i=0
	while kill -0 $pid 2>/dev/null && ((i++ < 600)); do sleep 0.1; done
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	kill -INT $cpid
	wait $cpid
	rm -f "$fifo"
	# every event was printed (else the count says nothing about them)
	if [ "$(grep -c ' syscall_loop ' "$B/st.out")" != "$1" ]; then echo fail; return; fi
	awk '/^@allocs: / { n = $2 } END { print n + 0 }' "$B/st.count"
}

st_a=$(st_allocs 10000)
st_b=$(st_allocs 100000)
if [ "$st_a" = fail ] || [ "$st_b" = fail ]; then
	fail steady:no_alloc_per_event
	echo "    runs: $st_a $st_b"; tail -5 "$B/st.err" | sed 's/^/    /'
elif [ "$st_a" -gt 0 ] && [ $((st_b - st_a)) -lt 90 ]; then
	pass steady:no_alloc_per_event
	echo "    allocations: $st_a for 10,000 events, $st_b for 100,000"
else
	# 0 allocations in the short run: the counter saw nothing at all
	fail steady:no_alloc_per_event
	echo "    allocations: $st_a for 10,000 events, $st_b for 100,000 (want a difference < 90, and > 0 at all)"
fi

fi
