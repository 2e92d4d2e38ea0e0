# t_steady.sh - the event path in the steady state allocates nothing
# (issue 10; issue 14's "sonde feeding on itself" relies on it): a probe on
# malloc in sonde's own process would otherwise fire once per event.
#
# A second sonde counts the measured sonde's malloc, calloc and realloc
# calls (uprobes on the library that provides them: libasan under ASan,
# else libc; filtered by the measured pid) while it prints one line per
# getppid() of a workload.  Two runs, 10,000 and 100,000 events: startup
# and teardown are the same in both, so the difference is what 90,000
# events cost.  The bound is under 1 allocation per 1,000 events.  No
# step has a time cap a loaded machine can miss: each waits for what it
# needs (the counter's probes seen firing, every event printed, the
# measured sonde's exit).

if need_root steady:bpf; then

build_workload syscall_loop
st_lib=$(ldd "$SONDE" 2>/dev/null | awk '$1 ~ /^libasan\.so/ { print $3; exit }')
[ -n "$st_lib" ] || st_lib=$(ldd "$SONDE" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3; exit }')
# the workload under a name of this run's own (other tests run syscall_loop
# too): its comm is what the measured program filters on
st_loop=$B/stl$$
cp "$B/syscall_loop" "$st_loop"
st_prog=${ST_PROG:-'tracepoint:syscalls:sys_enter_getppid /comm == "'stl$$'"/ { printf("%d %s %d\n", pid, comm, nsecs); @n = count(); }'}
# The -c command: the workload, then a wait until every event is printed
# (or sonde said it lost some), so that they are printed while tracing,
# the steady state measured here, rather than in the drain after the stop.
cat > "$B/st_work.sh" <<'SH'
#!/bin/sh
# st_work.sh WORKLOAD N OUT ERR
"$1" "$2" > /dev/null
until [ "$(grep -c " ${1##*/} " "$3")" -ge "$2" ] || grep -q lost "$4"; do sleep 0.05; done
SH
chmod +x "$B/st_work.sh"
st_count='uprobe:LIB:malloc, uprobe:LIB:calloc, uprobe:LIB:realloc /pid == $1/ { @allocs = count(); }
uprobe:LIB:malloc /pid == $2/ { printf("ready\n"); }'
st_count=${st_count//LIB/$st_lib}

# st_allocs N: the allocations of a sonde that prints N events, or "fail"
st_allocs() {
	local fifo=$B/st.fifo pid rpid cpid
	rm -f "$fifo" "$B/st.out" "$B/st.out.err"
	mkfifo "$fifo"
	# the measured sonde's pid is known before it runs: a shell that
	# waits on the fifo, then execs it
	sh -c 'read go < "$0"; exec "$1" -q -c "$2" -e "$3" > "$4" 2> "$4.err"' "$fifo" "$SONDE" \
		"$B/st_work.sh $st_loop $1 $B/st.out $B/st.out.err" "$st_prog" "$B/st.out" &
	pid=$!
	# the counter's probes are live once they see a process started after
	# "Attached" (they can miss the first moments of one without this):
	# a second sonde (the same library) that --version runs, held the same way
	rm -f "$fifo.ready"
	mkfifo "$fifo.ready"
	sh -c 'read go < "$0"; exec "$1" --version > /dev/null' "$fifo.ready" "$SONDE" &
	rpid=$!
	rm -f "$B/st.count" "$B/st.err"	# wait_for must not find the last run's lines
	"$SONDE" -e "$st_count" "$pid" "$rpid" > "$B/st.count" 2> "$B/st.err" &
	cpid=$!
	if ! wait_for "$B/st.err" '^Attached' 120 || ! { echo go > "$fifo.ready"; wait_for "$B/st.count" '^ready' 120; }; then
		kill -KILL $pid $rpid $cpid 2>/dev/null; wait $pid $rpid $cpid 2>/dev/null
		echo fail; return
	fi
	wait $rpid
	echo go > "$fifo"
	# the measured sonde ends when its -c workload does, after printing
	# every event: wait for that, however long a loaded machine takes
	wait $pid
	kill -INT $cpid
	wait $cpid
	rm -f "$fifo" "$fifo.ready"
	# every event was printed (else the count says nothing about them)
	if [ "$(grep -c " stl$$ " "$B/st.out")" != "$1" ]; then
		echo "fail ($(grep -c " stl$$ " "$B/st.out") of $1 events printed: $(head -c 200 "$B/st.out.err"))"
		return
	fi
	awk '/^@allocs: / { n = $2 } END { print n + 0 }' "$B/st.count"
}

st_a=$(st_allocs 10000)
st_b=$(st_allocs 100000)
rm -f "$st_loop"
if [[ $st_a == fail* || $st_b == fail* ]]; then
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
