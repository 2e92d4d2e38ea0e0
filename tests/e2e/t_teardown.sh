# t_teardown.sh - the teardown matrix (issue 14): a printf flood, a hot
# uprobe and an idle script, each stopped by SIGINT, SIGTERM, exit(), the
# end of the -c command and the end of the -p process.  Every case must
# exit (10 s is generous: the 1 s target is measured by bench/teardown, not
# asserted here), exit 0, run END and print the maps; and no case may leave
# a BPF program, map or link in the kernel.  Other helpers load BPF at the
# same time, so that means the ids each sonde itself held open (read from
# /proc/PID/fdinfo while it ran), looked up with bpftool once all are done.
#
# The three loads of one stop cause run side by side, each under its own
# command name (td_flood, td_hot, td_idle) that its script filters on.

if need_root teardown:matrix; then
if ! command -v bpftool >/dev/null || ! command -v jq >/dev/null; then
	skip teardown:matrix "bpftool and jq are needed to check the kernel is left clean"
else

build_workload teardown_load
for td_load in flood hot idle; do
	cp "$B/teardown_load" "$B/td_$td_load"
done

td_script() {
	local body
	case $1 in
	flood) body='tracepoint:syscalls:sys_enter_getppid /comm == "td_flood"/ { printf("flood %d\n", tid); @calls = count(); }' ;;
	hot) body="uprobe:$B/td_hot:td_hot { @hits = count(); }" ;;
	idle) body='tracepoint:syscalls:sys_enter_getppid /comm == "td_idle"/ { @calls = count(); }' ;;
	esac
	cat <<EOF
BEGIN { @alive = 1; }
$body
tracepoint:syscalls:sys_enter_getpgid /comm == "td_$1"/ { exit(); }
END { printf("END\n"); }
EOF
}

# the BPF object ids process $1 holds open: prog_id:N, map_id:N, link_id:N
td_held() { grep -hE '^(prog|map|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null | tr -d ' \t' | sort -u; }
# every such id the kernel has now
td_kernel() {
	{ bpftool -j prog show | jq -r '.[] | "prog_id:\(.id)"'
	  bpftool -j map show | jq -r '.[] | "map_id:\(.id)"'
	  bpftool -j link show | jq -r '.[] | "link_id:\(.id)"'; } 2>/dev/null | sort -u
}

# td_case LOAD STOP: one cell; its result line goes to $o.res, the ids
# sonde held to $o.held
td_case() {
	local load=$1 stop=$2 o=$B/td.$1.$2 w=$B/td_$1 wpid='' spid why='' i
	td_script "$load" > "$o.bt"
	: > "$o.err"
	rm -f "$o.w"	# its "ready" is waited for
	case $stop in
	c) "$SONDE" -c "$w $load 800" "$o.bt" > "$o.out" 2> "$o.err" & spid=$! ;;
	p) "$w" "$load" > "$o.w" & wpid=$!
	   "$SONDE" -p "$wpid" "$o.bt" > "$o.out" 2> "$o.err" & spid=$! ;;
	*) "$SONDE" "$o.bt" > "$o.out" 2> "$o.err" & spid=$! ;;
	esac
	for ((i = 0; i < 400; i++)); do
		grep -q '^Attached' "$o.err" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	td_held "$spid" > "$o.held"
	# the load starts once sonde is attached (-p: it had to exist first)
	case $stop in sigint|sigterm|exit) "$w" "$load" > "$o.w" & wpid=$! ;; esac
	# the load has blocked its signals (a SIGUSR1 before that would kill
	# it), and a busy load has run two clock ticks since sonde attached:
	# its calls are traced and fill the ring buffer
	if [ -n "$wpid" ]; then
		wait_for "$o.w" '^ready' 60
		[ "$load" = idle ] || wait_cpu_ticks "$wpid" 2 30
	fi
	case $stop in
	sigint) kill -INT "$spid" ;;
	sigterm) kill -TERM "$spid" ;;
	exit) kill -USR1 "$wpid" ;;
	p) kill -USR2 "$wpid" ;;
	c) ;;
	esac
	for ((i = 0; i < 200; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$spid" 2>/dev/null; then
		why="still running 10 s after the stop"
		kill -KILL "$spid"
	fi
	wait "$spid"
	local rc=$?
	if [ -n "$wpid" ]; then kill -KILL "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; fi
	[ -z "$why" ] && [ "$rc" != 0 ] && why="exit status $rc"
	[ -z "$why" ] && ! grep -qx END "$o.out" && why="no END output"
	[ -z "$why" ] && ! grep -qx '@alive: 1' "$o.out" && why="maps not printed"
	if [ -z "$why" ] && [ "$load" != idle ] && ! grep -qE '^@(calls|hits): [1-9]' "$o.out"; then
		why="the load was not traced"
	fi
	[ -z "$why" ] && [ ! -s "$o.held" ] && why="no BPF objects seen while it ran"
	if [ -z "$why" ]; then
		echo "PASS ${load}_$stop" > "$o.res"
	else
		{ echo "FAIL ${load}_$stop"; echo "    $why"
		  grep -v '^flood ' "$o.out" | tail -5 | sed 's/^/    out: /'
		  tail -5 "$o.err" | sed 's/^/    err: /'; } > "$o.res"
	fi
	rm -f "$o.out" "$o.err" "$o.w"
}

for td_stop in sigint sigterm exit c p; do
	for td_load in flood hot idle; do
		td_case "$td_load" "$td_stop" &
	done
	wait
	for td_load in flood hot idle; do
		td_o=$B/td.$td_load.$td_stop
		read -r td_res td_name < "$td_o.res"
		if [ "$td_res" = PASS ]; then pass "teardown:$td_name"; else
			fail "teardown:$td_name"; tail -n +2 "$td_o.res"
		fi
	done
done

# nothing any case held is left; freeing a perf event's program waits for
# an RCU grace period, so look again for up to 3 s
td_left=
for ((td_i = 0; td_i < 30; td_i++)); do
	td_left=$(comm -12 <(cat "$B"/td.*.held | sort -u) <(td_kernel))
	[ -z "$td_left" ] && break
	sleep 0.1
done
if [ -z "$td_left" ] && ! grep -qs 'td_\(flood\|hot\|idle\)' /sys/kernel/tracing/uprobe_events; then
	pass teardown:kernel_left_clean
else
	fail teardown:kernel_left_clean
	for td_id in $td_left; do
		echo "    left in the kernel: $td_id (held by $(grep -lx "$td_id" "$B"/td.*.held | xargs -n1 basename | tr '\n' ' '))"
	done
	grep -s 'td_\(flood\|hot\|idle\)' /sys/kernel/tracing/uprobe_events | sed 's/^/    uprobe event left: /'
fi
rm -f "$B"/td.*.held "$B"/td.*.res

# -- 360 tracepoints (issue 19): the kernel closes each perf event with a
#    grace period under one mutex (25 s in all), so sonde destroys the links
#    and leaves the events to a background `sonde-release`: when sonde has
#    exited, that process holds the events (perf_event descriptors and
#    nothing of BPF) and none of sonde's programs or links is left.
: > "$B/td.tp.err"	# the wait below must not find an old run's line
# (the map's name is this run's: another checkout's run may be beside it)
td_map=td_tp_release_$$
"$SONDE" -e "tracepoint:syscalls:sys_enter_* /pid == 1/ { @$td_map = count(); }" > "$B/td.tp.out" 2> "$B/td.tp.err" &
td_sp=$!
for ((td_i = 0; td_i < 1200; td_i++)); do grep -q '^Attached' "$B/td.tp.err" && break; sleep 0.1; done
td_ids=$(td_held $td_sp)
kill -INT $td_sp; wait $td_sp
# sonde waits for the first fork only: the background process may not have
# named itself or closed sonde's other descriptors yet (a busy machine
# showed no sonde-release there), so look again for up to 30 s
td_rel='' td_perf=0 td_bpf=x
for ((td_i = 0; td_i < 300; td_i++)); do
	td_rel=
	for td_p in $(pgrep -x sonde-release); do
		grep -qs "$td_map" /proc/"$td_p"/cmdline && td_rel=$td_p
	done
	if [ -n "$td_rel" ]; then
		td_perf=$(ls -l /proc/"$td_rel"/fd 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')
		td_bpf=$(td_held "$td_rel")
		[ "$td_perf" -gt 0 ] && [ -z "$td_bpf" ] && break
	fi
	sleep 0.1
done
# a perf event's program and its maps go after a tasks-trace grace period,
# seconds on a loaded machine: look again for up to 30 s
for ((td_i = 0; td_i < 300; td_i++)); do
	td_left=$(comm -12 <(printf '%s\n' "$td_ids" | sort -u) <(td_kernel))
	[ -z "$td_left" ] && break
	sleep 0.1
done
if [ "$td_perf" -gt 0 ] && [ -z "$td_bpf" ] && [ -z "$td_left" ] && [ -n "$td_ids" ]; then
	pass teardown:tracepoints_released_in_background
else
	fail teardown:tracepoints_released_in_background
	echo "    sonde-release ${td_rel:-absent}: $td_perf perf events, BPF objects '${td_bpf}'; left: $td_left"
fi

fi
fi
